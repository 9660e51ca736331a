//! What several families share, written once: the client script every
//! family's clients follow ([`client`]) and the protected resource
//! ([`resource`]). Families reach them as `algorithms::client` and
//! `algorithms::resource` too.

pub mod client;
pub mod resource;

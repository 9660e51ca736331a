//! What several families share, written once: the client script every
//! family's clients follow ([`client`]), the parts of the lease clients
//! ([`lease`]), the protected resource ([`resource`]) and the imports every
//! family file starts with ([`prelude`]). Families reach them as
//! `algorithms::client`, `algorithms::lease` ... too.

pub mod client;
pub mod lease;
pub mod one_server;
pub mod prelude;
pub mod real;
pub mod resource;

/// Accessors on a family's `State` for the variants shared code reads:
/// `parts!(State { Client(Client) => client, Resource(Resource) => resource })`
/// gives `State::client(&self) -> Option<&Client>` and
/// `State::resource(&self) -> Option<&Resource>`; and a conversion from
/// each part (`From<Resource> for State`), so that shared code can make a
/// family's message or state from its part.
macro_rules! parts {
    ($state:ident { $($variant:ident($ty:ty) => $name:ident),* $(,)? }) => {
        impl $state {
            $(
                pub fn $name(&self) -> Option<&$ty> {
                    match self {
                        $state::$variant(x) => Some(x),
                        _ => None,
                    }
                }
            )*
        }
        $(
            impl From<$ty> for $state {
                fn from(x: $ty) -> Self {
                    $state::$variant(x)
                }
            }
        )*
    };
}
pub(crate) use parts;

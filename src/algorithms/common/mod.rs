//! What several families share, written once: the client script every
//! family's clients follow ([`client`]) and their timing
//! (`client_timing!`), the parts of the lease clients ([`lease`]), the
//! protected resource ([`resource`]), a Redis server's persistence
//! ([`redis_key`]) and the imports every family file starts with
//! ([`prelude`]). Families reach them as `algorithms::client`,
//! `algorithms::lease` ... too.

pub mod client;
pub mod lease;
pub mod one_server;
pub mod prelude;
pub mod real;
pub mod redis_key;
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

/// The timing every family's clients share (docs/design.md §2), written as
/// the `Actor` methods that say it, inside a family's `impl Actor`:
/// - a holder works from 0 to `[system] work` ticks before it writes: its
///   `write` step may wait up to `work` local ticks ([`Actor::within`],
///   [`lease::work_within`]);
/// - with `want`: a client comes to want the lock (and a Redis or SQL
///   client retries after its back-off) at any moment, so its `want` step
///   is not urgent and every other step is ([`Actor::urgent`]). Without it
///   the family says `urgent` itself, or keeps the default (all urgent).
///
/// `client_timing!(Node::Client(p) => p.work, write: Step::Write, want: Step::Acquire);`
///
/// [`Actor::within`]: crate::world::Actor::within
/// [`Actor::urgent`]: crate::world::Actor::urgent
macro_rules! client_timing {
    ($client:pat => $work:expr, write: $write:path $(, want: $want:path)?) => {
        fn within(&self, step: Self::Step) -> Option<u8> {
            let $client = self else { return None };
            $crate::algorithms::lease::work_within($work, step == $write)
        }
        $(
            fn urgent(&self, step: Self::Step) -> bool {
                step != $want
            }
        )?
    };
}
pub(crate) use client_timing;

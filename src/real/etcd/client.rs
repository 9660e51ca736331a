//! The blocking client: the requests clientv3's `concurrency.Session` and
//! `concurrency.Mutex` send, each with [`REQUEST_TIMEOUT`](super::REQUEST_TIMEOUT).

use std::collections::HashMap;
use std::time::Duration;

use etcd_client::{
    Client, Compare, CompareOp, ConnectOptions, EventType, GetOptions, LeaseGrantOptions, LeaseKeepAliveStream,
    LeaseKeeper, SortOrder, SortTarget, Txn, TxnOp, TxnOpResponse, WatchOptions, WatchStream,
};
use tokio::runtime::Runtime;

use super::{Error, REQUEST_TIMEOUT};

/// A key as etcd reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyInfo {
    pub key: String,
    pub create_revision: i64,
    pub mod_revision: i64,
    /// The lease it is attached to (0: none).
    pub lease: i64,
}

impl KeyInfo {
    fn of(kv: &etcd_client::KeyValue) -> KeyInfo {
        KeyInfo {
            key: String::from_utf8_lossy(kv.key()).into_owned(),
            create_revision: kv.create_revision(),
            mod_revision: kv.mod_revision(),
            lease: kv.lease(),
        }
    }
}

/// `Mutex.tryAcquire`'s transaction, answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acquired {
    /// The client's key's create revision (`m.myRev`).
    pub my_rev: i64,
    /// Whether the transaction put the key (false: it existed).
    pub put: bool,
    /// The key with the lowest create revision under the prefix (`getOwner`).
    pub owner: Option<KeyInfo>,
    /// The transaction's header revision.
    pub revision: i64,
}

/// A watch event, as `waitDelete` reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchEvent {
    pub delete: bool,
    pub key: String,
    pub mod_revision: i64,
}

/// A blocking etcd v3 client: one gRPC connection (HTTP/2 on TCP) driven
/// by its own current-thread tokio runtime, which runs only while a call
/// runs. Dropping the client closes the connection, which ends its watch
/// and keep-alive streams on the server.
pub struct EtcdClient {
    client: Client,
    /// One keep-alive stream per lease, opened by its first keep-alive.
    keepers: HashMap<i64, (LeaseKeeper, LeaseKeepAliveStream)>,
    watches: Vec<Option<WatchStream>>,
    /// Last, so that it is dropped after the streams and the connection.
    rt: Runtime,
}

/// A watch opened by [`EtcdClient::watch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WatchId(usize);

fn header_revision(h: Option<&etcd_client::ResponseHeader>) -> i64 {
    h.map_or(0, |h| h.revision())
}

impl EtcdClient {
    pub fn connect(endpoint: &str) -> Result<EtcdClient, Error> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(Error::IoError)?;
        let options = ConnectOptions::new()
            .with_connect_timeout(REQUEST_TIMEOUT)
            .with_timeout(REQUEST_TIMEOUT);
        let client = rt.block_on(Client::connect([endpoint], Some(options)))?;
        Ok(EtcdClient {
            rt,
            client,
            keepers: HashMap::new(),
            watches: Vec::new(),
        })
    }

    /// The store's current revision (a read of a key that does not exist).
    pub fn revision(&mut self) -> Result<i64, Error> {
        let r = self.rt.block_on(self.client.get("\0", None))?;
        Ok(header_revision(r.header()))
    }

    /// `LeaseGrant(TTL)` with the server choosing the ID, as clientv3's
    /// `Grant` does: the lease's ID and granted TTL.
    pub fn lease_grant(&mut self, ttl: i64) -> Result<(i64, i64), Error> {
        let r = self.rt.block_on(self.client.lease_grant(ttl, None))?;
        Ok((r.id(), r.ttl()))
    }

    /// `LeaseGrant(TTL, ID)`: a lease with the client's ID.
    pub fn lease_grant_id(&mut self, ttl: i64, id: i64) -> Result<(i64, i64), Error> {
        let opts = LeaseGrantOptions::new().with_id(id);
        let r = self.rt.block_on(self.client.lease_grant(ttl, Some(opts)))?;
        Ok((r.id(), r.ttl()))
    }

    /// `LeaseRevoke(ID)`: its keys are deleted in one revision. An unknown
    /// lease is an error (`requested lease not found`).
    pub fn lease_revoke(&mut self, id: i64) -> Result<i64, Error> {
        self.keepers.remove(&id);
        let r = self.rt.block_on(self.client.lease_revoke(id))?;
        Ok(header_revision(r.header()))
    }

    /// One `LeaseKeepAlive` on the lease's keep-alive stream: the TTL it
    /// renewed, 0 when the lease is gone. `None`: renewed, but this was the
    /// stream's first keep-alive, whose answer `etcd-client` keeps to itself
    /// (it reports only that the TTL was positive).
    pub fn keep_alive(&mut self, id: i64) -> Result<Option<i64>, Error> {
        if let Some((keeper, stream)) = self.keepers.get_mut(&id) {
            let answer = self.rt.block_on(async {
                keeper.keep_alive().await?;
                stream.message().await
            });
            return match answer {
                Ok(Some(r)) => {
                    if r.ttl() <= 0 {
                        self.keepers.remove(&id);
                    }
                    Ok(Some(r.ttl().max(0)))
                }
                Ok(None) => {
                    self.keepers.remove(&id);
                    Err(Error::LeaseKeepAliveError("keep-alive stream closed".into()))
                }
                Err(e) => {
                    self.keepers.remove(&id);
                    Err(e)
                }
            };
        }
        match self.rt.block_on(self.client.lease_keep_alive(id)) {
            Ok(pair) => {
                self.keepers.insert(id, pair);
                Ok(None)
            }
            // etcd-client's answer to TTL 0 on the stream's first keep-alive.
            Err(Error::LeaseKeepAliveError(e)) if e == "lease not found" => Ok(Some(0)),
            Err(e) => Err(e),
        }
    }

    /// `LeaseTimeToLive(ID)`: the seconds left (truncated, as etcd
    /// reports them), or `None` for a lease that does not exist.
    pub fn time_to_live(&mut self, id: i64) -> Result<Option<i64>, Error> {
        let r = self.rt.block_on(self.client.lease_time_to_live(id, None))?;
        Ok((r.ttl() >= 0 && r.granted_ttl() > 0).then_some(r.ttl()))
    }

    /// `LeaseLeases`: the IDs of every live lease, sorted.
    pub fn leases(&mut self) -> Result<Vec<i64>, Error> {
        let r = self.rt.block_on(self.client.leases())?;
        let mut ids: Vec<i64> = r.leases().iter().map(|l| l.id()).collect();
        ids.sort_unstable();
        Ok(ids)
    }

    /// `Get(key)`: the key, if it exists, and the header revision.
    pub fn get(&mut self, key: &str) -> Result<(Option<KeyInfo>, i64), Error> {
        let r = self.rt.block_on(self.client.get(key, None))?;
        Ok((r.kvs().first().map(KeyInfo::of), header_revision(r.header())))
    }

    /// Every key under `prefix`, sorted by create revision (oldest first),
    /// and the header revision.
    pub fn range_by_create(&mut self, prefix: &str) -> Result<(Vec<KeyInfo>, i64), Error> {
        let opts = GetOptions::new()
            .with_prefix()
            .with_sort(SortTarget::Create, SortOrder::Ascend);
        let r = self.rt.block_on(self.client.get(prefix, Some(opts)))?;
        Ok((r.kvs().iter().map(KeyInfo::of).collect(), header_revision(r.header())))
    }

    /// `Put(key, value)` attached to `lease` (0: none): the new revision.
    pub fn put(&mut self, key: &str, value: &str, lease: i64) -> Result<i64, Error> {
        let opts = (lease != 0).then(|| etcd_client::PutOptions::new().with_lease(lease));
        let r = self.rt.block_on(self.client.put(key, value, opts))?;
        Ok(header_revision(r.header()))
    }

    /// `Delete(key)`, as clientv3's `Mutex.Unlock` does: how many keys it
    /// deleted, and the header revision.
    pub fn delete(&mut self, key: &str) -> Result<(i64, i64), Error> {
        let r = self.rt.block_on(self.client.delete(key, None))?;
        Ok((r.deleted(), header_revision(r.header())))
    }

    /// `Txn(If(CreateRevision(key) = rev), Then(Delete(key)))`: whether
    /// the compare held, and the header revision.
    pub fn delete_if_created(&mut self, key: &str, rev: i64) -> Result<(bool, i64), Error> {
        let txn = Txn::new()
            .when([Compare::create_revision(key, CompareOp::Equal, rev)])
            .and_then([TxnOp::delete(key, None)]);
        let r = self.rt.block_on(self.client.txn(txn))?;
        Ok((r.succeeded(), header_revision(r.header())))
    }

    /// `Mutex.tryAcquire` (client/v3/concurrency/mutex.go): `Txn(If(
    /// CreateRevision(myKey) = 0), Then(Put(myKey, "", lease), getOwner),
    /// Else(Get(myKey), getOwner))`, `getOwner` being `Get(prefix,
    /// WithFirstCreate())`. A lease that does not exist fails the put
    /// (`requested lease not found`).
    pub fn mutex_try_acquire(&mut self, prefix: &str, my_key: &str, lease: i64) -> Result<Acquired, Error> {
        let first_create = || {
            GetOptions::new()
                .with_prefix()
                .with_sort(SortTarget::Create, SortOrder::Ascend)
                .with_limit(1)
        };
        let put = etcd_client::PutOptions::new().with_lease(lease);
        let txn = Txn::new()
            .when([Compare::create_revision(my_key, CompareOp::Equal, 0)])
            .and_then([
                TxnOp::put(my_key, "", Some(put)),
                TxnOp::get(prefix, Some(first_create())),
            ])
            .or_else([TxnOp::get(my_key, None), TxnOp::get(prefix, Some(first_create()))]);
        let r = self.rt.block_on(self.client.txn(txn))?;
        let revision = header_revision(r.header());
        let ops = r.op_responses();
        let range = |op: Option<&TxnOpResponse>| match op {
            Some(TxnOpResponse::Get(g)) => g.kvs().first().map(KeyInfo::of),
            _ => None,
        };
        let my_rev = if r.succeeded() {
            revision
        } else {
            range(ops.first()).map_or(0, |k| k.create_revision)
        };
        Ok(Acquired {
            my_rev,
            put: r.succeeded(),
            owner: range(ops.get(1)),
            revision,
        })
    }

    /// `waitDeletes`'s query: `Get(prefix, WithLastCreate(),
    /// WithMaxCreateRev(max_create_rev))`, the newest key created at or
    /// before that revision, and the header revision (the watch on it
    /// starts there).
    pub fn last_created_before(&mut self, prefix: &str, max_create_rev: i64) -> Result<(Option<KeyInfo>, i64), Error> {
        let opts = GetOptions::new()
            .with_prefix()
            .with_sort(SortTarget::Create, SortOrder::Descend)
            .with_limit(1)
            .with_max_create_revision(max_create_rev);
        let r = self.rt.block_on(self.client.get(prefix, Some(opts)))?;
        Ok((r.kvs().first().map(KeyInfo::of), header_revision(r.header())))
    }

    /// `Watch(key, WithRev(rev))`, as `waitDelete` opens it; returns once
    /// etcd has confirmed the watch. Events at or after `rev` that
    /// happened already are delivered at once.
    pub fn watch(&mut self, key: &str, rev: i64) -> Result<WatchId, Error> {
        let opts = WatchOptions::new().with_start_revision(rev);
        let mut stream = self.rt.block_on(self.client.watch(key, Some(opts)))?;
        // The watch's first answer says it was created (or why not).
        let created = self
            .rt
            .block_on(async { tokio::time::timeout(REQUEST_TIMEOUT, stream.message()).await });
        match created {
            Ok(Ok(Some(r))) if r.created() && !r.canceled() => {}
            Ok(Ok(Some(r))) => {
                return Err(Error::WatchError(format!(
                    "watch of {key} from revision {rev} not created: {}",
                    r.cancel_reason()
                )))
            }
            Ok(Ok(None)) => return Err(Error::WatchError("watch stream closed".into())),
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(Error::WatchError("no answer to the watch".into())),
        }
        self.watches.push(Some(stream));
        Ok(WatchId(self.watches.len() - 1))
    }

    /// The events the watch has received, waiting at most `wait` for the
    /// first (the rest that are already there are taken too). The events
    /// already created were sent in the watch's first answers.
    pub fn watch_events(&mut self, w: WatchId, wait: Duration) -> Result<Vec<WatchEvent>, Error> {
        let Some(stream) = self.watches.get_mut(w.0).and_then(Option::as_mut) else {
            return Err(Error::WatchError("watch cancelled".into()));
        };
        let mut events = Vec::new();
        let mut wait = wait;
        loop {
            let next = self
                .rt
                .block_on(async { tokio::time::timeout(wait, stream.message()).await });
            match next {
                Err(_) => return Ok(events),
                Ok(Ok(Some(r))) => {
                    events.extend(r.events().iter().map(|e| {
                        let kv = e.kv();
                        WatchEvent {
                            delete: e.event_type() == EventType::Delete,
                            key: kv.map_or_else(String::new, |kv| String::from_utf8_lossy(kv.key()).into_owned()),
                            mod_revision: kv.map_or(0, |kv| kv.mod_revision()),
                        }
                    }));
                    if r.canceled() {
                        return Err(Error::WatchError(format!("watch cancelled: {}", r.cancel_reason())));
                    }
                    wait = Duration::from_millis(5);
                }
                Ok(Ok(None)) => return Err(Error::WatchError("watch stream closed".into())),
                Ok(Err(e)) => return Err(e),
            }
        }
    }

    /// Stops a watch (its stream is closed), as `waitDelete` does once it
    /// has seen the DELETE.
    pub fn cancel_watch(&mut self, w: WatchId) {
        if let Some(slot) = self.watches.get_mut(w.0) {
            *slot = None;
        }
    }
}

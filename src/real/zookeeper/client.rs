//! The synchronous client over the `zookeeper-client` crate: each call
//! blocks on the crate's future with a timeout, so reconnection, pings,
//! SetWatches and the errors a caller sees are the library's.

use std::future::Future;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{zk, CALL_TIMEOUT};

/// Runs a future of the client library to completion on this thread (its
/// connection task runs on async-global-executor's threads), or gives up
/// after `timeout` with [`zk::Error::Timeout`].
pub fn block<T>(timeout: Duration, f: impl Future<Output = Result<T, zk::Error>>) -> Result<T, zk::Error> {
    futures_lite::future::block_on(futures_lite::future::or(f, async move {
        async_io::Timer::after(timeout).await;
        Err(zk::Error::Timeout)
    }))
}

/// What a watch delivered, path relative to the client's chroot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: zk::EventType,
    pub path: String,
    pub state: zk::SessionState,
}

/// One ZooKeeper session through the `zookeeper-client` library, used
/// synchronously. Its watches deliver into one channel ([`ZkClient::events`]).
pub struct ZkClient {
    client: zk::Client,
    tx: mpsc::Sender<Event>,
    rx: mpsc::Receiver<Event>,
}

impl ZkClient {
    /// Opens a session on `connect` (`host:port`, optionally followed by a
    /// chroot path) asking for `session_timeout`. The session is detached:
    /// dropping the client closes its connection without `closeSession`,
    /// as a crashed process does, and the session expires on the server.
    pub fn connect(connect: &str, session_timeout: Duration) -> Result<ZkClient, zk::Error> {
        let client = block(
            CALL_TIMEOUT,
            zk::Client::connector()
                .with_session_timeout(session_timeout)
                .with_detached()
                .connect(connect),
        )?;
        let (tx, rx) = mpsc::channel();
        Ok(ZkClient { client, tx, rx })
    }

    pub fn session_id(&self) -> i64 {
        self.client.session_id().0
    }

    /// The timeout the server granted.
    pub fn session_timeout(&self) -> Duration {
        self.client.session_timeout()
    }

    /// The library's view of the session now.
    pub fn state(&self) -> zk::SessionState {
        self.client.state()
    }

    pub fn client(&self) -> &zk::Client {
        &self.client
    }

    /// `create path` PERSISTENT, `NodeExists` counting as done.
    pub fn ensure(&self, path: &str) -> Result<(), zk::Error> {
        let opts = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
        match block(CALL_TIMEOUT, self.client.create(path, b"", &opts)) {
            Ok(_) | Err(zk::Error::NodeExists) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `create prefix EPHEMERAL_SEQUENTIAL`: the node's name (its last
    /// path component), its sequence number and its stat (`czxid`).
    pub fn create_ephemeral_sequential(&self, prefix: &str) -> Result<(String, i64, zk::Stat), zk::Error> {
        let opts = zk::CreateMode::EphemeralSequential.with_acls(zk::Acls::anyone_all());
        let (stat, seq) = block(CALL_TIMEOUT, self.client.create(prefix, b"", &opts))?;
        let name = format!("{}{seq}", prefix.rsplit('/').next().unwrap_or_default());
        Ok((name, seq.into_i64(), stat))
    }

    /// `getChildren path` (sorted), with a watch if `watch`.
    pub fn children(&self, path: &str, watch: bool) -> Result<Vec<String>, zk::Error> {
        let mut names = if watch {
            let (names, w) = block(CALL_TIMEOUT, self.client.list_and_watch_children(path))?;
            self.deliver(w);
            names
        } else {
            block(CALL_TIMEOUT, self.client.list_children(path))?
        };
        names.sort();
        Ok(names)
    }

    /// `exists path`, with a watch if `watch`.
    pub fn exists(&self, path: &str, watch: bool) -> Result<Option<zk::Stat>, zk::Error> {
        if watch {
            let (stat, w) = block(CALL_TIMEOUT, self.client.check_and_watch_stat(path))?;
            self.deliver(w);
            Ok(stat)
        } else {
            block(CALL_TIMEOUT, self.client.check_stat(path))
        }
    }

    /// `delete path` (any version).
    pub fn delete(&self, path: &str) -> Result<(), zk::Error> {
        block(CALL_TIMEOUT, self.client.delete(path, None))
    }

    /// The watch events delivered so far, waiting up to `wait` for the
    /// first `at_least` of them.
    pub fn events(&self, at_least: usize, wait: Duration) -> Vec<Event> {
        let deadline = Instant::now() + wait;
        let mut got = Vec::new();
        loop {
            while let Ok(e) = self.rx.try_recv() {
                got.push(e);
            }
            let now = Instant::now();
            if got.len() >= at_least || now >= deadline {
                return got;
            }
            if let Ok(e) = self.rx.recv_timeout(deadline - now) {
                got.push(e);
            }
        }
    }

    /// A one-shot watch delivers into the channel from a thread of its own
    /// (the watcher is kept, not dropped, until it fires).
    fn deliver(&self, w: zk::OneshotWatcher) {
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            let e = futures_lite::future::block_on(w.changed());
            let _ = tx.send(Event {
                kind: e.event_type,
                path: e.path,
                state: e.session_state,
            });
        });
    }
}

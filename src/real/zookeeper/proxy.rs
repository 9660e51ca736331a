//! The loopback TCP proxy the test owns: it forwards a client's bytes to
//! the server until cut, then drops the connection and refuses new ones
//! until it heals.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{sleep, JoinHandle};
use std::time::Duration;

#[derive(Default)]
struct ProxyState {
    /// Cut: open connections were dropped, new ones are closed at once.
    cut: bool,
    /// Frozen: nothing is forwarded (bytes wait), so a request sent now
    /// stays pending until the cut.
    frozen: bool,
    /// Both ends of every open connection, to shut them down on a cut.
    conns: Vec<(TcpStream, TcpStream)>,
}

/// A loopback TCP proxy in front of one server, owned by the test: a
/// client connected through it loses its connection when the proxy is
/// [`Proxy::cut`], and cannot open a new one until [`Proxy::heal`].
pub struct Proxy {
    port: u16,
    state: Arc<Mutex<ProxyState>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl Proxy {
    /// A proxy on a free loopback port, forwarding to `target`.
    pub fn start(target: SocketAddr) -> io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        listener.set_nonblocking(true)?;
        let state = Arc::new(Mutex::new(ProxyState::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (st, sp) = (state.clone(), stop.clone());
        let accept = std::thread::spawn(move || {
            while !sp.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((client, _)) => {
                        if st.lock().expect("proxy state").cut {
                            drop(client);
                            continue;
                        }
                        let _ = client.set_nonblocking(false);
                        let Ok(server) = TcpStream::connect(target) else {
                            continue;
                        };
                        let _ = client.set_nodelay(true);
                        let _ = server.set_nodelay(true);
                        let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) else {
                            continue;
                        };
                        if let (Ok(c3), Ok(s3)) = (client.try_clone(), server.try_clone()) {
                            st.lock().expect("proxy state").conns.push((c3, s3));
                        }
                        pump(client, s2, st.clone());
                        pump(server, c2, st.clone());
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => sleep(Duration::from_millis(2)),
                    Err(_) => sleep(Duration::from_millis(2)),
                }
            }
        });
        Ok(Proxy {
            port,
            state,
            stop,
            accept: Some(accept),
        })
    }

    /// `127.0.0.1:PORT`, the connect string through the proxy.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Drops every open connection (both ends see it closed) and refuses
    /// new ones until [`Proxy::heal`].
    pub fn cut(&self) {
        let mut st = self.state.lock().expect("proxy state");
        st.cut = true;
        st.frozen = false;
        for (c, s) in st.conns.drain(..) {
            let _ = c.shutdown(Shutdown::Both);
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// Forwards nothing until the next [`Proxy::cut`] or [`Proxy::heal`].
    pub fn freeze(&self) {
        self.state.lock().expect("proxy state").frozen = true;
    }

    /// Accepts connections again.
    pub fn heal(&self) {
        let mut st = self.state.lock().expect("proxy state");
        st.cut = false;
        st.frozen = false;
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.cut();
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

/// Copies `from` to `to` on a thread of its own until either closes.
fn pump(mut from: TcpStream, mut to: TcpStream, state: Arc<Mutex<ProxyState>>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            loop {
                let st = state.lock().expect("proxy state");
                if st.cut {
                    let _ = to.shutdown(Shutdown::Both);
                    return;
                }
                if !st.frozen {
                    break;
                }
                drop(st);
                sleep(Duration::from_millis(1));
            }
            if to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
    });
}

// ---------------------------------------------------------------------------
// The client.

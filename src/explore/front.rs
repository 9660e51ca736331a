//! The explorer's front door: a small HTTP server on the user's address
//! that serves locksmith's page and `/.liveness` itself, and passes every
//! other request to stateright's explorer on a loopback port of its own.
//!
//! stateright serves its page from inside the crate (or from `./ui/`,
//! which `explore` refuses to use: a file there would outlive a killed
//! process), titles it with the model's Rust type (`Explorer<Node>`),
//! opens it on an empty "Pre-init" step and knows nothing of liveness.
//! Its API (`/.status`, `/.states/...`, `/.runtocompletion`) and its
//! stylesheet and scripts are served unchanged; the page (`ui/index.htm`)
//! and its script (`ui/app.js`) are stateright's with the changes their
//! headers list.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::diagram::escape;
use super::liveness::Liveness;

const PAGE: &str = include_str!("ui/index.htm");
const SCRIPT: &str = include_str!("ui/app.js");

/// A request's head longer than this is refused.
const MAX_HEAD: usize = 64 * 1024;

/// How long a request waits for stateright's server to come up: it starts
/// listening a moment after the front door does.
const UPSTREAM_WAIT: Duration = Duration::from_secs(10);

/// What the front door serves, and where it sends the rest.
pub struct Front {
    /// The page, with the scenario's name and summary filled in.
    page: String,
    liveness: Arc<Liveness>,
    /// stateright's explorer.
    upstream: SocketAddr,
}

impl Front {
    pub fn new(name: &str, summary: &str, liveness: Arc<Liveness>, upstream: SocketAddr) -> Front {
        let page = PAGE
            .replace("{{summary}}", &escape(summary))
            .replace("{{name}}", &escape(name));
        Front {
            page,
            liveness,
            upstream,
        }
    }

    /// Answers every connection on `listener`, each on a thread of its
    /// own, until the process ends.
    pub fn serve(self: Arc<Self>, listener: TcpListener) {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            let front = Arc::clone(&self);
            std::thread::spawn(move || {
                // A client that goes away mid-answer is no error of ours.
                let _ = front.answer(conn);
            });
        }
    }

    /// One request, one answer, then the connection is closed.
    fn answer(&self, mut client: TcpStream) -> io::Result<()> {
        let head = read_head(&mut client)?;
        let mut words = head.split_whitespace();
        let (Some(method), Some(path)) = (words.next(), words.next()) else {
            return respond(&mut client, "400 Bad Request", "text/plain", b"not an HTTP request");
        };
        match (method, path) {
            ("GET", "/") => respond(&mut client, "200 OK", "text/html; charset=utf-8", self.page.as_bytes()),
            ("GET", "/app.js") => respond(
                &mut client,
                "200 OK",
                "text/javascript; charset=utf-8",
                SCRIPT.as_bytes(),
            ),
            ("GET", "/.liveness") => respond(
                &mut client,
                "200 OK",
                "application/json",
                self.liveness.json().as_bytes(),
            ),
            _ => self.forward(&mut client, method, path),
        }
    }

    /// Passes the request to stateright as HTTP/1.0 (its requests carry no
    /// body), so that its answer ends when it closes the connection, and
    /// copies the answer back.
    fn forward(&self, client: &mut TcpStream, method: &str, path: &str) -> io::Result<()> {
        let start = Instant::now();
        let mut up = loop {
            match TcpStream::connect(self.upstream) {
                Ok(up) => break up,
                Err(_) if start.elapsed() < UPSTREAM_WAIT => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => {
                    let why = format!("stateright's explorer on {} does not answer: {e}", self.upstream);
                    return respond(client, "502 Bad Gateway", "text/plain", why.as_bytes());
                }
            }
        };
        write!(
            up,
            "{method} {path} HTTP/1.0\r\nHost: {}\r\nContent-Length: 0\r\n\r\n",
            self.upstream
        )?;
        io::copy(&mut up, client)?;
        Ok(())
    }
}

/// The request line and headers, up to the blank line that ends them.
fn read_head(client: &mut TcpStream) -> io::Result<String> {
    client.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
        let n = client.read(&mut buf)?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

fn respond(client: &mut TcpStream, status: &str, kind: &str, body: &[u8]) -> io::Result<()> {
    write!(
        client,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    client.write_all(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_names_the_scenario_escaped() {
        let liveness = Liveness::waiting();
        let front = Front::new("a<b", "x & \"y\"", liveness, "127.0.0.1:9".parse().expect("an address"));
        assert!(
            front.page.contains("<title>a&lt;b · locksmith explore"),
            "{}",
            front.page
        );
        assert!(front.page.contains("x &amp; &quot;y&quot;"));
        assert!(!front.page.contains("{{"), "a placeholder is left");
        assert!(
            !front.page.contains("data-bind=\"text: model\""),
            "the model's Rust type"
        );
    }
}

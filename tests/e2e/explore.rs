//! `locksmith explore` end to end (docs/design.md §11): the built binary serves
//! stateright's explorer on an ephemeral port; the tests speak its HTTP API
//! over a plain TcpStream, and load its page in headless Chromium.
//!
//! The browser tests need Chromium (`.ci/run` installs Debian's). Without
//! it each prints `*** BROWSER TEST NOT RUN` and passes, except under
//! `CI=true`, where it fails.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_locksmith");

/// A port nobody listens on now: bind port 0, read the port, let it go.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("an ephemeral port")
        .port()
}

/// A running explorer, killed when dropped (also when a test fails).
struct Explorer {
    child: Child,
    port: u16,
    cwd: PathBuf,
}

impl Drop for Explorer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.cwd);
    }
}

impl Explorer {
    /// Starts `locksmith explore ARGS` on a free port, from a working
    /// directory that holds a decoy `ui/` page, and waits until it answers.
    fn start(args: &[&str]) -> Explorer {
        let port = free_port();
        let cwd = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("explore-cwd-{port}"));
        std::fs::create_dir_all(cwd.join("ui")).expect("a working directory");
        std::fs::write(cwd.join("ui/index.htm"), "DECOY PAGE FROM ./ui").expect("a decoy page");
        let addr = format!("127.0.0.1:{port}");
        let child = Command::new(BIN)
            .arg("explore")
            .args(args)
            .args(["--addr", &addr])
            .current_dir(&cwd)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("locksmith starts");
        let mut ex = Explorer { child, port, cwd };
        let start = Instant::now();
        loop {
            if let Some(status) = ex.child.try_wait().expect("the child's status") {
                let mut err = String::new();
                if let Some(mut e) = ex.child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                panic!("locksmith explore exited ({status}) before answering: {err}");
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return ex;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the explorer did not answer on {addr} within 60 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// One HTTP/1.0 request (so the body comes whole, not chunked); the
    /// status code and the body.
    fn http(&self, method: &str, path: &str) -> (u16, String) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connects");
        s.set_read_timeout(Some(Duration::from_secs(60))).expect("a timeout");
        write!(
            s,
            "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\n\r\n",
            self.port
        )
        .expect("sends");
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("reads the response");
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP response");
        let code = head
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("a status code");
        (code, body.to_string())
    }

    fn json(&self, path: &str) -> Value {
        let (code, body) = self.http("GET", path);
        assert_eq!(code, 200, "GET {path}: {}", short(&body));
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: {e}: {}", short(&body)))
    }

    /// `/.liveness` once `check`'s search behind it has ended.
    fn liveness(&self) -> Value {
        let start = Instant::now();
        loop {
            let liveness = self.json("/.liveness");
            if liveness["done"] == Value::Bool(true) {
                return liveness;
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "the liveness check did not finish: {liveness}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Presses "Run to completion" and waits until the search is done.
    fn run_to_completion(&self) -> Value {
        let (code, _) = self.http("POST", "/.runtocompletion");
        assert_eq!(code, 200);
        let start = Instant::now();
        loop {
            let status = self.json("/.status");
            if status["done"] == Value::Bool(true) {
                return status;
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "the search did not finish: {status}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// The start of a long text, for a failure message.
fn short(text: &str) -> String {
    text.chars().take(600).collect()
}

fn actions(steps: &Value) -> Vec<String> {
    steps
        .as_array()
        .expect("a list of steps")
        .iter()
        .map(|s| s["action"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Rust `Debug` syntax that plain words never hold.
fn assert_plain(what: &str, text: &str) {
    for debug in ["{ ", "Some(", "None", "WorldState", "Envelope", "Node {"] {
        assert!(!text.contains(debug), "{what} shows `{debug}`: {text}");
    }
}

#[test]
fn the_http_api_serves_the_world_in_plain_words() {
    let ex = Explorer::start(&["redis-ttl-gc-pause"]);
    // The explorer ran in a directory of its own, removed again at once:
    // before it serves, though its port (bound first) may answer a moment
    // earlier on a busy machine, so the test waits a little for it.
    let own = std::env::temp_dir().join(format!("locksmith-explore-{}", ex.child.id()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while own.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!own.exists(), "{} is left behind", own.display());

    // Its own page, not the decoy in the working directory's ui/, titled
    // with the scenario and its summary, not the model's Rust type.
    let (code, page) = ex.http("GET", "/");
    assert_eq!(code, 200);
    assert!(page.contains("Stateright Explorer"), "{page}");
    assert!(!page.contains("DECOY"), "served ./ui/ from the working directory");
    assert!(
        page.contains("<title>redis-ttl-gc-pause · locksmith explore"),
        "{}",
        short(&page)
    );
    assert!(
        page.contains("Single Redis with a TTL: the holder pauses past the TTL"),
        "{page}"
    );
    assert!(
        !page.contains("text: model"),
        "the page shows the model's Rust type: {page}"
    );

    let status = ex.json("/.status");
    assert_eq!(
        status["done"],
        Value::Bool(false),
        "nothing is checked before it is asked for"
    );
    let names: Vec<&str> = status["properties"]
        .as_array()
        .expect("properties")
        .iter()
        .map(|p| p[1].as_str().expect("a name"))
        .collect();
    assert_eq!(names, ["mutual_exclusion", "no_stale_write", "no_foreign_release"]);

    // The initial state, in words.
    let init = ex.json("/.states");
    let init = &init.as_array().expect("initial states")[0];
    let state = init["state"].as_str().expect("a state");
    assert!(state.contains("c1 (up): phase wants"), "{state}");
    assert!(state.contains("want the lock: c1, c2"), "{state}");
    assert_plain("the initial state", state);
    assert!(init["svg"].as_str().expect("a diagram").starts_with("<svg"));

    // The initial state's actions, in trace.md's words.
    let next = ex.json("/.states/0");
    let words = actions(&next);
    for expected in ["c1 asks for the lock", "c2 asks for the lock", "c1 pauses for 3 ticks"] {
        assert!(words.iter().any(|a| a == expected), "{expected:?} not in {words:?}");
    }
    for step in next.as_array().expect("steps") {
        assert_plain("an action", step["action"].as_str().unwrap_or_default());
        assert_plain("a step", step["outcome"].as_str().unwrap_or_default());
    }

    // A successor by its path: after "c1 asks for the lock", redis can
    // receive the request, and the step says what it changed.
    let k = words.iter().position(|a| a == "c1 asks for the lock").expect("c1 asks");
    let step = &next[k];
    let outcome = step["outcome"].as_str().expect("what the step did");
    assert!(outcome.contains("c1 sends SET lock v1 NX PX 4 to redis"), "{outcome}");
    let after = ex.json(&format!("/.states/0/{k}"));
    let words = actions(&after);
    let k = words
        .iter()
        .position(|a| a == "redis receives SET lock v1 NX PX 4 from c1")
        .unwrap_or_else(|| panic!("redis cannot receive c1's request: {words:?}"));
    // The diagram of that path: c1's step, then its message as an arrow.
    let svg = after[k]["svg"].as_str().expect("a diagram");
    assert!(
        svg.contains(">asks for the lock<") && svg.contains(">SET lock v1 NX PX 4<"),
        "{svg}"
    );
    let (code, _) = ex.http("GET", "/.states/0/999");
    assert_eq!(code, 404, "a path that is not enabled");

    // "Run to completion": every safety property this scenario breaks is
    // found, and its discovery path replays to a state that shows it.
    let status = ex.run_to_completion();
    for p in status["properties"].as_array().expect("properties") {
        let path = p[2]
            .as_str()
            .unwrap_or_else(|| panic!("no counterexample for {}", p[1]));
        assert!(path.starts_with("0/"), "{path}");
    }
    let path = status["properties"][0][2].as_str().expect("mutual_exclusion's path");
    let (before, last) = path.rsplit_once('/').expect("a path of steps");
    let steps = ex.json(&format!("/.states/{before}"));
    let last: usize = last.parse().expect("an index");
    let shown = steps[last]["outcome"].as_str().expect("the last step");
    assert!(shown.contains("believe they hold the lock: c1, c2"), "{shown}");
    let svg = steps[last]["svg"].as_str().expect("a diagram");
    assert!(svg.contains("mutual_exclusion violated in the last state"), "{svg}");
}

/// The explorer's search over its canonical states counts what `check`
/// counts, and finds no violation where `check` finds none.
#[test]
fn run_to_completion_agrees_with_check() {
    let name = "lock-table-crash";
    let out = Command::new(BIN)
        .args(["check", name, "--format", "json", "--no-reports"])
        .output()
        .expect("check runs");
    let summary: Value = serde_json::from_slice(&out.stdout).expect("a JSON summary");
    let ex = Explorer::start(&[name]);
    let status = ex.run_to_completion();
    assert_eq!(status["unique_state_count"], summary["unique_states"], "{status}");
    for p in status["properties"].as_array().expect("properties") {
        assert_eq!(p[2], Value::Null, "{} has a counterexample in the explorer", p[1]);
    }
    // The liveness verdicts the page shows are check's: here both are
    // violated, over every state.
    let liveness = ex.liveness();
    assert_eq!(liveness["complete"], Value::Bool(true), "{liveness}");
    assert_eq!(liveness["unique_states"], summary["unique_states"], "{liveness}");
    let verdicts = |props: &Value| -> Vec<(String, String)> {
        props
            .as_array()
            .expect("properties")
            .iter()
            .map(|p| (p["name"].to_string(), p["verdict"].to_string()))
            .filter(|(n, _)| n.contains("_freedom"))
            .collect()
    };
    let shown = verdicts(&liveness["properties"]);
    assert_eq!(shown, verdicts(&summary["properties"]), "{liveness}");
    assert_eq!(
        shown,
        [
            ("\"deadlock_freedom\"".to_string(), "\"violated\"".to_string()),
            ("\"starvation_freedom\"".to_string(), "\"violated\"".to_string())
        ]
    );
}

/// Under symmetry reduction the explorer shows canonical states, and its
/// diagram says so.
#[test]
fn symmetric_scenarios_show_canonical_states() {
    let ex = Explorer::start(&["redlock-no-fsync"]);
    let next = ex.json("/.states/0");
    let svg = next[0]["svg"].as_str().expect("a diagram");
    assert!(svg.contains("canonical form"), "{svg}");
    let words = actions(&next);
    assert!(
        words.iter().any(|a| a == "c1 asks every master for the lock"),
        "{words:?}"
    );
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("locksmith runs")
}

fn one_sentence(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.starts_with("locksmith: "), "{err}");
    err
}

#[test]
fn a_taken_port_is_one_sentence_and_exit_2() {
    let taken = TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = taken.local_addr().expect("its address").to_string();
    let err = one_sentence(&run(&["explore", "redis-ttl-gc-pause", "--addr", &addr]));
    assert!(err.contains("the port is in use") && err.contains(&addr), "{err}");

    let err = one_sentence(&run(&["explore", "redis-ttl-gc-pause", "--addr", "not-an-address"]));
    assert!(err.contains("--addr \"not-an-address\""), "{err}");
    let err = one_sentence(&run(&["explore", "redis-ttl-gc-pause", "--addr", "127.0.0.1:0"]));
    assert!(err.contains("port 0 is not allowed"), "{err}");
    let err = one_sentence(&run(&["explore", "no-such-scenario"]));
    assert!(err.contains("no-such-scenario"), "{err}");
}

/// Whether this run is CI's (`CI` set to anything but empty, `false`, `0`).
fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "false" | "0"))
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::env::split_paths(&path).chain([PathBuf::from("/usr/bin")]);
    dirs.flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
        .find(|p| p.is_file())
}

/// Headless Chromium on `url`, with a profile of its own.
fn browse(browser: &Path, profile: &Path, extra: &[&str], url: &str) -> Output {
    Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1280,900",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .output()
        .expect("chromium runs")
}

/// Chromium, or `None` after saying the test is not run; under `CI=true`
/// a missing Chromium fails the test instead.
fn browser_or_skip() -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        let why = "*** BROWSER TEST NOT RUN: chromium is not installed (.ci/run installs it with apt-get)";
        assert!(!under_ci(), "{why}; under CI=true it must run");
        eprintln!("{why}");
    }
    found
}

#[test]
fn the_page_shows_the_initial_actions_in_a_browser() {
    let Some(browser) = browser_or_skip() else { return };
    let ex = Explorer::start(&["redis-ttl-gc-pause"]);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("explore-browser");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a directory for the screenshot");
    // The initial state selected: its next actions are listed.
    let url = ex.url("/#/steps/0");

    let shot = dir.join("explorer.png");
    let out = browse(
        &browser,
        &dir.join("profile"),
        &[&format!("--screenshot={}", shot.display())],
        &url,
    );
    let png = std::fs::read(&shot).unwrap_or_else(|e| {
        panic!(
            "no screenshot at {} ({e}); chromium said: {}",
            shot.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let size = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().expect("4 bytes"));
    assert_eq!((size(16), size(20)), (1280, 900), "the window's size");
    assert!(png.len() > 20_000, "a near-empty screenshot: {} bytes", png.len());

    let out = browse(&browser, &dir.join("profile"), &["--dump-dom"], &url);
    let dom = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "c1 asks for the lock",
        "c2 asks for the lock",
        "c1 pauses for 3 ticks",
        "want the lock: c1, c2",
    ] {
        assert!(dom.contains(expected), "the page does not show {expected:?}: {dom}");
    }
    assert!(dom.contains("<svg"), "no diagram on the page");
    assert!(dom.contains("mutual_exclusion"), "no properties on the page");
    eprintln!("explorer screenshot: {}", shot.display());
}

/// The page as a user first sees it (no `#/steps/...` in the address): the
/// scenario's name and summary as its title, the initial state selected
/// as "start" with its actions listed, and `check`'s liveness verdicts.
#[test]
fn the_page_opens_on_start_with_the_scenario_and_its_liveness() {
    let Some(browser) = browser_or_skip() else { return };
    let ex = Explorer::start(&["redis-ttl-gc-pause"]);
    ex.liveness();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("explore-browser-start");
    let _ = std::fs::remove_dir_all(&dir);
    let out = browse(&browser, &dir.join("profile"), &["--dump-dom"], &ex.url("/"));
    let dom = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "<title>redis-ttl-gc-pause · locksmith explore",
        ">redis-ttl-gc-pause</a></h1>",
        "Single Redis with a TTL: the holder pauses past the TTL",
        // The initial state is selected, under its name, and its actions
        // are listed.
        ">start</a>",
        "c1 asks for the lock",
        "want the lock: c1, c2",
        // check's verdicts, and how far its search went.
        "Holds: </b>",
        ">deadlock_freedom</span>",
        ">starvation_freedom</span>",
        "Checked over all ",
    ] {
        assert!(dom.contains(expected), "the page does not show {expected:?}: {dom}");
    }
    for stale in ["Pre-init", "Init 0", "Explorer&lt;", "No state selected"] {
        assert!(!dom.contains(stale), "the page shows {stale:?}: {dom}");
    }
}

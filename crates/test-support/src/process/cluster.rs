//! What the multi-replica tests share: the Redis and NATS they run on (or a skip), and a
//! real `shoal worker` process on one replica.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::{admin, shoal_bin, Loc, Server};

/// One TCP exchange with a server at `addr`: `hello` sent (if any), the first bytes back.
fn first_bytes(addr: &str, hello: &[u8], n: usize) -> std::io::Result<Vec<u8>> {
    let addr = std::net::ToSocketAddrs::to_socket_addrs(addr)?
        .next()
        .ok_or(std::io::ErrorKind::NotFound)?;
    let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
    s.set_read_timeout(Some(Duration::from_secs(1)))?;
    s.write_all(hello)?;
    let mut buf = vec![0u8; n];
    s.read_exact(&mut buf)?;
    Ok(buf)
}

/// `url` when a server answers there as `probe` says, `None` (after saying so) when it does
/// not and `skip_var=skip`; panics otherwise.
fn reachable_or_skip(
    url_var: &str,
    default: &str,
    skip_var: &str,
    probe: impl Fn(&str) -> bool,
) -> Option<String> {
    let url = std::env::var(url_var).unwrap_or_else(|_| default.to_owned());
    let addr = url.split_once("://").map_or(url.as_str(), |(_, a)| a);
    let addr = addr
        .rsplit('@')
        .next()
        .unwrap_or(addr)
        .trim_end_matches('/');
    if probe(addr) {
        return Some(url);
    }
    if std::env::var(skip_var).as_deref() == Ok("skip") {
        eprintln!("SKIPPED: nothing answers at {url} ({skip_var}=skip)");
        return None;
    }
    panic!("nothing answers at {url} (set {skip_var}=skip to skip)");
}

/// The Redis URL (SHOAL_TEST_REDIS_URL, default redis://127.0.0.1:6379), or `None` when it is
/// unreachable and SHOAL_TEST_REDIS=skip.
pub fn redis_or_skip() -> Option<String> {
    let pong = |addr: &str| first_bytes(addr, b"PING\r\n", 7).is_ok_and(|b| b == b"+PONG\r\n");
    reachable_or_skip(
        "SHOAL_TEST_REDIS_URL",
        "redis://127.0.0.1:6379",
        "SHOAL_TEST_REDIS",
        pong,
    )
}

/// The NATS URL (SHOAL_TEST_NATS_URL, default nats://127.0.0.1:4222), or `None` when it is
/// unreachable and SHOAL_TEST_NATS=skip.
pub fn nats_or_skip() -> Option<String> {
    // A NATS server greets every connection with `INFO {…}`.
    let info = |addr: &str| first_bytes(addr, b"", 5).is_ok_and(|b| b == b"INFO ");
    reachable_or_skip(
        "SHOAL_TEST_NATS_URL",
        "nats://127.0.0.1:4222",
        "SHOAL_TEST_NATS",
        info,
    )
}

/// A `shoal worker --backend openai` process connected to one replica.
pub struct WorkerProcess {
    child: Child,
}

impl WorkerProcess {
    /// Serves `service-pro` with `concurrency` slots from `upstream` (a `…/v1` URL) on `s`.
    pub fn start(s: &Server, store: &Loc, upstream: &str, concurrency: u32) -> WorkerProcess {
        WorkerProcess::start_with(s, store, |cmd| {
            cmd.args(["--backend", "openai", "--upstream", upstream])
                .args(["--serve", "service-pro", "--concurrency"])
                .arg(concurrency.to_string());
        })
    }

    /// `shoal worker` on `s` with its token, and the backend's arguments `backend` adds.
    pub fn start_with(
        s: &Server,
        store: &Loc,
        backend: impl FnOnce(&mut Command),
    ) -> WorkerProcess {
        WorkerProcess::start_on_gateways(&[&s.base], &s.data_dir, store, backend)
    }

    /// `shoal worker` given each of `gateways` (`--gateway` repeated, in order), its log in
    /// `log_dir`.
    pub fn start_on_gateways(
        gateways: &[&str],
        log_dir: &std::path::Path,
        store: &Loc,
        backend: impl FnOnce(&mut Command),
    ) -> WorkerProcess {
        let token = admin(store, &["worker-token", "create", "--name", "cluster"]);
        let log = log_dir.join(format!("worker-{}.log", rand_tag()));
        let mut cmd = Command::new(shoal_bin());
        cmd.args(["worker", "--token", &token]);
        for g in gateways {
            cmd.args(["--gateway", g]);
        }
        backend(&mut cmd);
        let child = cmd
            .env("SHOAL_LOG", "info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .expect("spawn shoal worker");
        WorkerProcess { child }
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `tests/e2e/a1111.py`, the scripted A1111-compatible server, with noise PNGs (as large as
/// a real render's) that take `render_ms` each.
pub struct A1111 {
    child: Child,
    pub url: String,
}

impl A1111 {
    pub fn start(render_ms: u32) -> A1111 {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/e2e/a1111.py");
        let mut child = Command::new("python3")
            .args([script, "--port", "0", "--noise", "--render-ms"])
            .arg(render_ms.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn python3 tests/e2e/a1111.py");
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line).unwrap();
        let url = (line.trim().strip_prefix("listening on "))
            .unwrap_or_else(|| panic!("the A1111 stand-in did not start: {line:?}"))
            .to_owned();
        A1111 { child, url }
    }

    /// The bodies of the requests to `path` it received, oldest first.
    pub async fn received(&self, path: &str) -> Vec<serde_json::Value> {
        let all: serde_json::Value = reqwest::get(format!("{}/_requests", self.url))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        (all.as_array().unwrap().iter())
            .filter(|r| r["path"] == path)
            .map(|r| r["body"].clone())
            .collect()
    }

    /// Whether a txt2img request whose prompt contains `text` arrived.
    pub async fn rendered(&self, text: &str) -> bool {
        (self.received("/sdapi/v1/txt2img").await.iter())
            .any(|b| b["prompt"].as_str().is_some_and(|p| p.contains(text)))
    }
}

impl Drop for A1111 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `shoal-image-worker --backend a1111` process (built beside `shoal`) connected to `s`.
pub fn image_worker(s: &Server, store: &Loc, a1111: &str, model: &str) -> WorkerProcess {
    let binary = shoal_bin().with_file_name("shoal-image-worker");
    assert!(
        binary.is_file(),
        "{} is missing: cargo build -p shoal-image-worker",
        binary.display()
    );
    let token = admin(store, &["worker-token", "create", "--name", "images"]);
    let log = s.data_dir.join(format!("image-worker-{}.log", rand_tag()));
    let child = Command::new(binary)
        .args(["--gateway", &s.base, "--token", &token])
        .args(["--backend", "a1111", "--a1111-url", a1111, "--model", model])
        .args(["--concurrency", "1"])
        .env("SHOAL_LOG", "info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .expect("spawn shoal-image-worker");
    WorkerProcess { child }
}

/// `shoal classifier make-test` into `dir`: the config lines of the tiny output checker, whose
/// concepts flag nothing.
pub fn tiny_checker(dir: &std::path::Path) -> String {
    let out = Command::new(shoal_bin())
        .args(["classifier", "make-test", "--out"])
        .arg(dir)
        .output()
        .expect("run shoal classifier make-test");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut paths = stdout.split_whitespace();
    let (weights, concepts) = (paths.next().unwrap(), paths.next().unwrap());
    format!("image_classifier_path = \"{weights}\"\nimage_concepts_path = \"{concepts}\"\n")
}

fn rand_tag() -> usize {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as usize
}

//! Real `shoal` processes on ephemeral ports with a real SQLite data folder (or a
//! throwaway PostgreSQL database): `shoal serve` ([`Server`]), `shoal admin` ([`admin`]),
//! hand-written workers on its socket ([`worker`]), `shoal worker` and the services several
//! replicas share ([`cluster`]), and reading its answers.
//!
//! The `shoal` binary is `SHOAL_BIN`, else the one cargo built beside the running test
//! (`target/debug/shoal` for `target/debug/deps/<test>`).

pub mod cluster;
pub mod worker;

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The `shoal` binary the processes run.
pub fn shoal_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("SHOAL_BIN") {
            return PathBuf::from(bin);
        }
        let exe = std::env::current_exe().expect("the test binary's path");
        let deps = exe.parent().expect("the test binary's folder");
        let beside = |dir: &Path| dir.join("shoal");
        match deps.file_name() {
            Some(name) if name == "deps" => beside(deps.parent().expect("the profile folder")),
            _ => beside(deps),
        }
    })
}

/// Where a server keeps its store: a data folder (SQLite) or a database URL.
#[derive(Debug, Clone)]
pub enum Loc {
    Dir(PathBuf),
    Url(String),
}

impl Loc {
    /// The `shoal` arguments that point at this store.
    fn args(&self) -> [OsString; 2] {
        match self {
            Loc::Dir(d) => ["--data-dir".into(), d.into()],
            Loc::Url(u) => ["--database-url".into(), u.into()],
        }
    }
}

impl From<&Path> for Loc {
    fn from(p: &Path) -> Loc {
        Loc::Dir(p.to_path_buf())
    }
}

impl From<&PathBuf> for Loc {
    fn from(p: &PathBuf) -> Loc {
        Loc::Dir(p.clone())
    }
}

impl From<&Loc> for Loc {
    fn from(l: &Loc) -> Loc {
        l.clone()
    }
}

/// Runs `shoal admin --data-dir DIR ARGS…` (or `--database-url`), asserts success and
/// exactly one line of stdout, and returns that line.
pub fn admin(at: impl Into<Loc>, args: &[&str]) -> String {
    let lines = admin_lines(at, args);
    assert_eq!(lines.len(), 1, "admin {args:?} printed {lines:?}");
    lines.into_iter().next().unwrap()
}

/// Runs `shoal admin --data-dir DIR ARGS…` (or `--database-url`), asserts success,
/// returns stdout's lines.
pub fn admin_lines(at: impl Into<Loc>, args: &[&str]) -> Vec<String> {
    let out = Command::new(shoal_bin())
        .arg("admin")
        .args(at.into().args())
        .args(args)
        .env_remove("SHOAL_DATABASE_URL")
        .output()
        .expect("run shoal admin");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "shoal admin {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout.lines().map(str::to_owned).collect()
}

/// An account with `credits` and one API key (optionally with its own rpm).
pub fn account_with_key(
    at: impl Into<Loc>,
    email: &str,
    credits: i64,
    rpm: Option<u32>,
) -> (String, String) {
    let dir = &at.into();
    let account = admin(dir, &["account", "create", "--email", email]);
    if credits > 0 {
        admin(
            dir,
            &[
                "credits",
                "grant",
                "--account",
                &account,
                "--credits",
                &credits.to_string(),
            ],
        );
    }
    let mut args = vec!["key", "create", "--account", account.as_str()];
    let rpm_s;
    if let Some(r) = rpm {
        rpm_s = r.to_string();
        args.extend(["--rpm", rpm_s.as_str()]);
    }
    let key = admin(dir, &args);
    (account, key)
}

pub struct Server {
    pub child: Child,
    pub base: String,
    /// Its logs and config, and its SQLite store unless `store` says otherwise.
    pub data_dir: PathBuf,
    pub store: Loc,
    pub stderr_log: PathBuf,
    _tmp: Option<tempfile::TempDir>,
}

impl Server {
    /// Starts `shoal serve` on 127.0.0.1:0 with a fresh data folder.
    pub fn start(config_toml: Option<&str>) -> Server {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let mut s = Server::start_in(&dir, config_toml);
        s._tmp = Some(tmp);
        s
    }

    pub fn start_in(dir: &Path, config_toml: Option<&str>) -> Server {
        Server::start_on(dir, Loc::Dir(dir.to_path_buf()), config_toml)
    }

    /// Starts `shoal serve` with its logs and config in `dir` and its store at `store`.
    pub fn start_on(dir: &Path, store: Loc, config_toml: Option<&str>) -> Server {
        Server::start_with(dir, store, config_toml, &[])
    }

    /// As `start_on`, with more `shoal serve` arguments.
    pub fn start_with(dir: &Path, store: Loc, config_toml: Option<&str>, extra: &[&str]) -> Server {
        Server::start_adjusted(dir, store, config_toml, extra, |_| {})
    }

    /// `shoal serve` on a fresh data folder, started with its open-file soft limit at `soft`
    /// (as a login shell's 1024 would leave it).
    pub fn start_with_open_files(config_toml: Option<&str>, soft: u64) -> Server {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let store = Loc::Dir(dir.clone());
        let mut s = Server::start_adjusted(&dir, store, config_toml, &[], |cmd| {
            use std::os::unix::process::CommandExt;
            // SAFETY: between fork and exec only async-signal-safe calls are allowed;
            // getrlimit and setrlimit are system calls that allocate nothing.
            unsafe {
                cmd.pre_exec(move || {
                    let mut limit = libc::rlimit {
                        rlim_cur: 0,
                        rlim_max: 0,
                    };
                    if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    limit.rlim_cur = soft.min(limit.rlim_max);
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        });
        s._tmp = Some(tmp);
        s
    }

    fn start_adjusted(
        dir: &Path,
        store: Loc,
        config_toml: Option<&str>,
        extra: &[&str],
        adjust: impl FnOnce(&mut Command),
    ) -> Server {
        std::fs::create_dir_all(dir).unwrap();
        let stderr_log = dir.join(format!("serve-{}.log", std::process::id()));
        let mut cmd = Command::new(shoal_bin());
        cmd.arg("serve")
            .arg("--listen")
            .arg("127.0.0.1:0")
            .args(store.args())
            .args(extra);
        if let Some(toml) = config_toml {
            let path = dir.join("shoal.toml");
            std::fs::write(&path, toml).unwrap();
            cmd.arg("--config").arg(path);
        }
        cmd.env_remove("SHOAL_DATABASE_URL")
            .env("SHOAL_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr_log).unwrap());
        adjust(&mut cmd);
        let mut child = cmd.spawn().expect("spawn shoal serve");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(line)) = lines.next() {
                let _ = tx.send(line);
            }
            for _ in lines {}
        });
        let line = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => line,
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "shoal serve did not start: {}",
                    std::fs::read_to_string(&stderr_log).unwrap_or_default()
                );
            }
        };
        let base = line
            .strip_prefix("listening on ")
            .expect("ready line")
            .trim()
            .to_string();
        Server {
            child,
            base,
            data_dir: dir.to_path_buf(),
            store,
            stderr_log,
            _tmp: None,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn logs(&self) -> String {
        std::fs::read_to_string(&self.stderr_log).unwrap_or_default()
    }

    /// Sends SIGTERM and waits for the exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        self.child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Asserts the one error shape and returns (code, message, type).
pub async fn error_of(resp: reqwest::Response) -> (String, String, String) {
    let ct = resp
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    assert!(
        ct.starts_with("application/json"),
        "error content-type was {ct:?}"
    );
    let body: serde_json::Value = resp.json().await.expect("error body is JSON");
    let err = body
        .get("error")
        .unwrap_or_else(|| panic!("no `error` in {body}"));
    let get = |k: &str| {
        err.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or_else(|| panic!("error.{k} missing or not a string in {body}"))
            .to_string()
    };
    (get("code"), get("message"), get("type"))
}

/// `GET url` with `key` as the bearer; the body as JSON, whatever the status.
pub async fn get_json(url: &str, key: &str) -> serde_json::Value {
    reqwest::Client::new()
        .get(url)
        .bearer_auth(key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// (credits, credits_held) of the key's account, from `/api/v1/balance`.
pub async fn balance_of(s: &Server, key: &str) -> (i64, i64) {
    let v = get_json(&s.url("/api/v1/balance"), key).await;
    (
        v["credits"].as_i64().unwrap(),
        v["credits_held"].as_i64().unwrap(),
    )
}

/// A `service-pro` chat request with `key` asking for `max_tokens` at most, which sizes its
/// hold: a few credits for a few thousand.
pub async fn race_chat(
    c: &reqwest::Client,
    s: &Server,
    key: &str,
    max_tokens: u32,
) -> reqwest::Response {
    let body = serde_json::json!({"model": "service-pro", "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": "race"}]});
    c.post(s.url("/api/v1/chat/completions"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap()
}

/// Polls `check` until it holds; fails the test after `limit`.
pub async fn wait_until(what: &str, limit: Duration, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The sample named exactly `name` (labels included) on `/metrics`, 0 when absent.
pub async fn metric(s: &Server, name: &str) -> u64 {
    let text = reqwest::get(s.url("/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .map_or(0, |v| v.trim().parse::<f64>().unwrap() as u64)
}

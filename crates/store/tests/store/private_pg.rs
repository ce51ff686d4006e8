//! A PostgreSQL server of the test's own, to stop and restart at will (never the shared one
//! that other tests use): `initdb` into a temporary folder, `pg_ctl` on a free port.
//!
//! The binaries are found through `SHOAL_TEST_PG_BIN` (a folder), `pg_config --bindir`, or
//! `/usr/lib/postgresql/*/bin`; without them [`PrivatePg::start`] says so and returns `None`
//! (the test is skipped). PostgreSQL refuses to run as root: as root the server runs as the
//! `postgres` user (`runuser`), which then owns the folder.

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::process::Command;

pub struct PrivatePg {
    bin: PathBuf,
    /// Holds the data folder and the socket; removed on drop.
    dir: tempfile::TempDir,
    pub port: u16,
    as_postgres: bool,
}

fn find_bin() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("SHOAL_TEST_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if dir.join("initdb").exists() {
            return Some(dir);
        }
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").exists())
        .collect();
    found.sort();
    found.pop()
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    l.local_addr().unwrap().port()
}

impl PrivatePg {
    /// A new cluster, started. `None` (with a message) when PostgreSQL's binaries are absent.
    pub fn start() -> Option<PrivatePg> {
        let Some(bin) = find_bin() else {
            eprintln!(
                "skipped: no PostgreSQL binaries (initdb, pg_ctl) found; set SHOAL_TEST_PG_BIN \
                 to their folder to run this test"
            );
            return None;
        };
        let as_postgres = std::fs::metadata("/proc/self").map(|m| m.uid()).ok() == Some(0);
        let dir = tempfile::Builder::new()
            .prefix("shoal-pg-")
            .tempdir()
            .expect("temp dir");
        let pg = PrivatePg {
            bin,
            dir,
            port: free_port(),
            as_postgres,
        };
        if as_postgres {
            let chown = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(pg.dir.path())
                .status()
                .expect("chown");
            assert!(chown.success(), "chown the cluster's folder to postgres");
        }
        let data = pg.data();
        pg.run("initdb", &["-A", "trust", "-U", "postgres", "-D", &data]);
        pg.start_server();
        Some(pg)
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    /// A PostgreSQL tool, run as the user that owns the cluster.
    fn tool(&self, tool: &str) -> Command {
        let exe = self.bin.join(tool);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        }
    }

    fn run(&self, tool: &str, args: &[&str]) {
        let out = self
            .tool(tool)
            .args(args)
            .output()
            .expect("run a PostgreSQL tool");
        assert!(
            out.status.success(),
            "{tool} {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn server_options(&self) -> String {
        // No fsync: these tests break the server on purpose, never the machine.
        format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
            self.port,
            self.dir.path().display()
        )
    }

    /// Start the server and wait until it accepts connections.
    pub fn start_server(&self) {
        let log = self.log();
        let data = self.data();
        let opts = self.server_options();
        self.run(
            "pg_ctl",
            &["start", "-w", "-D", &data, "-l", &log, "-o", &opts],
        );
    }

    /// `pg_ctl restart -m fast`: every session is ended (SQLSTATE 57P01), the server comes
    /// back at once. Returns when it accepts connections again.
    pub fn restart_fast(&self) {
        let data = self.data();
        let opts = self.server_options();
        // With a log file: otherwise the server would keep pg_ctl's output open, and
        // waiting for that output would wait for the server to end.
        let log = self.log();
        self.run(
            "pg_ctl",
            &[
                "restart", "-w", "-m", "fast", "-D", &data, "-l", &log, "-o", &opts,
            ],
        );
    }

    fn log(&self) -> String {
        self.dir.path().join("server.log").display().to_string()
    }

    /// `pg_ctl stop -m fast`.
    pub fn stop(&self) {
        let data = self.data();
        self.run("pg_ctl", &["stop", "-w", "-m", "fast", "-D", &data]);
    }

    /// The admin URL (database `postgres`).
    pub fn url(&self) -> String {
        self.url_of("postgres")
    }

    pub fn url_of(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }
}

impl Drop for PrivatePg {
    fn drop(&mut self) {
        let data = self.data();
        // Already stopped is fine.
        let _ = self
            .tool("pg_ctl")
            .args(["stop", "-w", "-m", "immediate", "-D", &data])
            .output();
    }
}

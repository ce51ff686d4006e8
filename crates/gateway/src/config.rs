//! Gateway configuration: the TOML file's shape and the resolved settings.
//!
//! Precedence, highest first: command-line flag, environment variable (both handled by the
//! binary), config file, built-in default.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use shoal_store::money::RateCard;

use crate::chat::catalog::{Catalog, ModelSpec};
use crate::chat::images::ImageLimits;
use crate::http::{AllowedOrigins, MetricsToken, ServerLimits, TrustedProxies};

pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
pub const DEFAULT_DATA_DIR: &str = "./shoal-data";
pub const DEFAULT_BODY_LIMIT: usize = 20 * 1024 * 1024;
pub const DEFAULT_RPM: u32 = 60;
/// Requests in flight at once per key: far above what one agent runs, low enough that one key
/// cannot take a replica's every worker slot and connection.
pub const DEFAULT_KEY_CONCURRENCY: u32 = 64;
/// Free daily credits for requests from the dashboard (USD 0.05 a day).
pub const DEFAULT_FREE_DAILY_CREDITS: i64 = 50;

/// The config file as written by an operator. Every field is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub listen: Option<SocketAddr>,
    pub data_dir: Option<PathBuf>,
    pub database_url: Option<String>,
    /// Redis shared by several replicas for exact rate limits (`redis://…`); absent, each
    /// process limits on its own. Read by the binary, which builds the limiter.
    pub redis_url: Option<String>,
    /// Prefix of every Redis key Shoal writes [default: `shoal:`]; replicas that share limits
    /// share it, separate deployments on one Redis use different ones.
    pub redis_key_prefix: Option<String>,
    /// Longest a rate-limit check waits for Redis before this replica decides alone and skips
    /// Redis until a probe finds it answering [default: 200].
    pub redis_timeout_ms: Option<u64>,
    /// NATS shared by several replicas, so that a request reaches a worker connected to any
    /// of them (`nats://…`); absent, only this process's workers. Read by the binary.
    pub nats_url: Option<String>,
    /// Prefix of every NATS subject Shoal uses [default: `shoal`]; one per deployment.
    pub nats_subject_prefix: Option<String>,
    /// Largest request body accepted, in bytes.
    pub body_limit_bytes: Option<usize>,
    /// Requests per minute for keys that have no limit of their own.
    pub default_rpm: Option<u32>,
    /// Longest a chat request may run (from its arrival, queueing included) before the gateway
    /// gives up on it.
    pub request_timeout_secs: Option<u64>,
    /// How long an unsettled credit hold lives; defaults to the request timeout plus 5 minutes.
    pub hold_ttl_secs: Option<u64>,
    /// How often expired holds are released (and old ended holds pruned).
    pub reaper_interval_secs: Option<u64>,
    /// How long an ended (settled, voided, expired) hold is kept in the holds table, where it
    /// makes a repeated settle of the same request id a no-op; the journal keeps it forever.
    pub hold_retention_secs: Option<u64>,
    /// How long a verified API key is trusted without asking the store again.
    pub auth_cache_ms: Option<u64>,
    /// A secret that `GET /metrics` must present as `Authorization: Bearer …` (at least 16
    /// characters); absent, `/metrics` is open to whoever reaches the port.
    pub metrics_token: Option<String>,
    /// Image parts of chat requests: the most pixels along either side [default: 8192], in
    /// all [default: 16777216, 4096 × 4096] and bytes per image, decoded [default: 10 MiB];
    /// read from the image's header at the gateway, beyond them 400.
    pub chat_image_max_side: Option<u64>,
    pub chat_image_max_pixels: Option<u64>,
    pub chat_image_max_bytes: Option<u64>,
    /// Requests one API key may have in flight at once on one replica, for keys without a
    /// cap of their own; one more gets 429 with `Retry-After` [default: 64].
    pub key_concurrency: Option<u32>,
    /// Credits sold per USD (display and purchase only; pricing uses 1 credit = 0.001 USD).
    pub credits_per_usd_sold: Option<i64>,
    /// Free credits per account per UTC day for requests from the dashboard (playground,
    /// images page), spent before the plan's credits and the balance; API keys never spend
    /// them. 0 turns them off.
    pub free_daily_credits: Option<i64>,
    /// Mark the dashboard's session cookie `Secure` (read by `shoal-dashboard`; set it when the site is served over
    /// TLS, directly or behind a proxy) [default: false].
    pub cookie_secure: Option<bool>,
    /// How long a dashboard login lasts, in hours [default: 168, a week].
    pub session_ttl_hours: Option<u64>,
    /// Password hashes (Argon2id, 19 MiB each) the dashboard computes at once; a sign-up,
    /// login or reset beyond them waits `password_hash_wait_ms`, then gets 503 with
    /// `Retry-After` (read by `shoal-dashboard`) [default: 2].
    pub password_hash_concurrency: Option<usize>,
    /// How long a form waits for a hashing turn, in milliseconds [default: 2000].
    pub password_hash_wait_ms: Option<u64>,
    /// Password reset by mail (`[smtp]`, read by `shoal-dashboard`); absent, the operator
    /// resets passwords with `shoal admin account set-password`.
    pub smtp: Option<toml::Value>,
    /// How long a request waits for a busy worker to free a slot before 503.
    pub queue_timeout_secs: Option<u64>,
    /// How many requests may wait for a slot at once; beyond that, 503 at once.
    pub max_queued: Option<usize>,
    /// How often workers send heartbeats; one silent for three intervals is dropped.
    pub worker_heartbeat_ms: Option<u64>,
    /// Origins whose pages may call `/api/v1` from a browser: `["*"]` (the default) or a list
    /// of origins such as `"https://app.example.com"`.
    pub cors_allowed_origins: Option<Vec<String>>,
    /// How long a request's head may take to arrive, from the connection's start or its first
    /// byte; a slower (or silent) client is disconnected [default: 10].
    pub header_read_timeout_secs: Option<u64>,
    /// How long a connection may sit with no request in flight and no bytes moving before
    /// it is closed [default: 75].
    pub idle_timeout_secs: Option<u64>,
    /// Connections open at once; beyond it a new one is closed at once [default: 16384, and
    /// never more than the open-file limit allows].
    pub max_connections: Option<usize>,
    /// Connections open at once from one client address (trusted proxies excepted)
    /// [default: 512].
    pub max_connections_per_address: Option<usize>,
    /// Proxies (CIDRs or addresses) whose `X-Forwarded-For` names the client, for the
    /// dashboard's throttles and the access log; from any other peer the header is ignored
    /// [default: none].
    pub trusted_proxies: Option<Vec<String>>,
    pub pricing: Option<PricingConfig>,
    /// A content policy file whose terms extend the built-in image prompt policy (read by
    /// `shoal-images`).
    pub image_policy_path: Option<PathBuf>,
    /// Blocked image prompts that suspend a key from image generation: this many within
    /// `image_block_window_secs`, counted per key and over the account's keys (read by
    /// `shoal-images`) [default: 10; 0 never suspends].
    pub image_block_limit: Option<u32>,
    /// The window of `image_block_limit`, in seconds [default: 86400, a day].
    pub image_block_window_secs: Option<u64>,
    /// The image output classifier's checker file (Stable Diffusion's safety checker,
    /// safetensors); without it image generation answers 503. Read by the binary.
    pub image_classifier_path: Option<PathBuf>,
    /// Its concept file (JSON: named embeddings with thresholds, `adult` and `minor`).
    pub image_concepts_path: Option<PathBuf>,
    /// Cores one image check may use [default: half of them].
    pub image_classifier_threads: Option<usize>,
    /// Replaces the built-in catalog whole.
    pub models: Option<Vec<ModelSpec>>,
    /// Buying credits with a stablecoin (`shoal-payments` reads it; the binary wires it in).
    pub payments: Option<toml::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PricingConfig {
    pub input_nano_usd_per_token: i64,
    pub output_nano_usd_per_token: i64,
}

impl FileConfig {
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read config file {}: {e}", path.display()))?;
        toml::from_str(&text).map_err(|e| anyhow::anyhow!("config file {}: {e}", path.display()))
    }
}

/// Settings the running gateway uses.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    pub listen: SocketAddr,
    pub body_limit_bytes: usize,
    pub default_rpm: u32,
    pub request_timeout: Duration,
    pub hold_ttl: Duration,
    pub reaper_interval: Duration,
    pub hold_retention: Duration,
    pub auth_cache: Duration,
    pub key_concurrency: u32,
    pub metrics_token: Option<MetricsToken>,
    pub chat_images: ImageLimits,
    pub credits_per_usd_sold: i64,
    pub free_daily_credits: i64,
    pub queue_timeout: Duration,
    pub max_queued: usize,
    pub worker_heartbeat: Duration,
    pub rate_card: RateCard,
    pub catalog: Catalog,
    pub cors_origins: AllowedOrigins,
    pub trusted_proxies: TrustedProxies,
    pub server: ServerLimits,
}

impl GatewayConfig {
    /// Resolves a file config (already overlaid with flags) into settings, checking ranges.
    pub fn from_file(mut file: FileConfig) -> anyhow::Result<Self> {
        let listen = match file.listen {
            Some(addr) => addr,
            None => DEFAULT_LISTEN.parse()?,
        };
        let default_rpm = file.default_rpm.unwrap_or(DEFAULT_RPM);
        anyhow::ensure!(default_rpm > 0, "default_rpm must be at least 1");
        let body_limit_bytes = file.body_limit_bytes.unwrap_or(DEFAULT_BODY_LIMIT);
        anyhow::ensure!(
            body_limit_bytes >= 1024,
            "body_limit_bytes must be at least 1024"
        );
        let lifetimes = Lifetimes::of(&file)?;
        let rate_card = rate_card(file.pricing.as_ref())?;
        let catalog = match file.models.take() {
            Some(models) => Catalog::new(models).map_err(|e| anyhow::anyhow!("[[models]]: {e}"))?,
            None => Catalog::builtin(),
        };
        let cors_origins = match &file.cors_allowed_origins {
            Some(list) => AllowedOrigins::parse(list)?,
            None => AllowedOrigins::Any,
        };
        let (credits_per_usd_sold, free_daily_credits) = credit_settings(&file)?;
        let key_concurrency = file.key_concurrency.unwrap_or(DEFAULT_KEY_CONCURRENCY);
        anyhow::ensure!(key_concurrency > 0, "key_concurrency must be at least 1");
        let metrics_token = file
            .metrics_token
            .as_deref()
            .map(MetricsToken::new)
            .transpose()?;
        let trusted_proxies =
            TrustedProxies::parse(file.trusted_proxies.as_deref().unwrap_or(&[]))?;
        Ok(GatewayConfig {
            listen,
            body_limit_bytes,
            default_rpm,
            request_timeout: lifetimes.request_timeout,
            hold_ttl: lifetimes.hold_ttl,
            reaper_interval: Duration::from_secs(file.reaper_interval_secs.unwrap_or(10).max(1)),
            hold_retention: lifetimes.hold_retention,
            auth_cache: Duration::from_millis(file.auth_cache_ms.unwrap_or(1000)),
            key_concurrency,
            metrics_token,
            chat_images: chat_image_limits(&file)?,
            credits_per_usd_sold,
            free_daily_credits,
            queue_timeout: Duration::from_secs(file.queue_timeout_secs.unwrap_or(30)),
            max_queued: file.max_queued.unwrap_or(1024),
            worker_heartbeat: Duration::from_millis(
                file.worker_heartbeat_ms.unwrap_or(5000).max(100),
            ),
            rate_card,
            catalog,
            cors_origins,
            trusted_proxies,
            server: server_limits(&file)?,
        })
    }
}

/// How long a request, its hold and an ended hold's row live; each outlives the one before.
struct Lifetimes {
    request_timeout: Duration,
    hold_ttl: Duration,
    hold_retention: Duration,
}

impl Lifetimes {
    fn of(file: &FileConfig) -> anyhow::Result<Lifetimes> {
        let request_timeout = Duration::from_secs(file.request_timeout_secs.unwrap_or(600));
        let hold_ttl = file
            .hold_ttl_secs
            .map(Duration::from_secs)
            .unwrap_or(request_timeout + Duration::from_secs(300));
        anyhow::ensure!(
            hold_ttl > request_timeout,
            "hold_ttl_secs must be longer than request_timeout_secs, or a running request could lose its hold"
        );
        let hold_retention = Duration::from_secs(file.hold_retention_secs.unwrap_or(86_400));
        anyhow::ensure!(
            hold_retention >= hold_ttl,
            "hold_retention_secs must be at least hold_ttl_secs"
        );
        Ok(Lifetimes {
            request_timeout,
            hold_ttl,
            hold_retention,
        })
    }
}

/// The `[pricing]` table, or the default prices.
fn rate_card(pricing: Option<&PricingConfig>) -> anyhow::Result<RateCard> {
    let Some(p) = pricing else {
        return Ok(RateCard::default());
    };
    anyhow::ensure!(
        p.input_nano_usd_per_token >= 0 && p.output_nano_usd_per_token >= 0,
        "prices must not be negative"
    );
    Ok(RateCard {
        input_nano_usd_per_token: p.input_nano_usd_per_token,
        output_nano_usd_per_token: p.output_nano_usd_per_token,
    })
}

/// Credits sold per USD, and the free daily credits of dashboard requests.
fn credit_settings(file: &FileConfig) -> anyhow::Result<(i64, i64)> {
    let credits_per_usd_sold = file
        .credits_per_usd_sold
        .unwrap_or(shoal_store::money::DEFAULT_CREDITS_PER_USD_SOLD);
    anyhow::ensure!(
        credits_per_usd_sold > 0,
        "credits_per_usd_sold must be positive"
    );
    let free_daily_credits = file
        .free_daily_credits
        .unwrap_or(DEFAULT_FREE_DAILY_CREDITS);
    anyhow::ensure!(
        (0..=shoal_store::MAX_CREDITS).contains(&free_daily_credits),
        "free_daily_credits must be 0 or more"
    );
    Ok((credits_per_usd_sold, free_daily_credits))
}

/// The HTTP server's timeouts and connection caps.
fn server_limits(file: &FileConfig) -> anyhow::Result<ServerLimits> {
    let d = ServerLimits::default();
    let secs = |v: Option<u64>, default: Duration| v.map_or(default, Duration::from_secs);
    let limits = ServerLimits {
        header_read_timeout: secs(file.header_read_timeout_secs, d.header_read_timeout),
        idle_timeout: secs(file.idle_timeout_secs, d.idle_timeout),
        max_connections: file.max_connections.unwrap_or(d.max_connections),
        max_connections_per_address: (file.max_connections_per_address)
            .unwrap_or(d.max_connections_per_address),
    };
    anyhow::ensure!(
        !limits.header_read_timeout.is_zero() && !limits.idle_timeout.is_zero(),
        "header_read_timeout_secs and idle_timeout_secs must be at least 1"
    );
    anyhow::ensure!(
        limits.max_connections >= 1 && limits.max_connections_per_address >= 1,
        "max_connections and max_connections_per_address must be at least 1"
    );
    Ok(limits)
}

/// `chat_image_max_*`: each at least 1.
fn chat_image_limits(file: &FileConfig) -> anyhow::Result<ImageLimits> {
    let d = ImageLimits::default();
    let limits = ImageLimits {
        max_side: file.chat_image_max_side.unwrap_or(d.max_side),
        max_pixels: file.chat_image_max_pixels.unwrap_or(d.max_pixels),
        max_bytes: file.chat_image_max_bytes.unwrap_or(d.max_bytes),
    };
    anyhow::ensure!(
        limits.max_side >= 1 && limits.max_pixels >= 1 && limits.max_bytes >= 1,
        "chat_image_max_side, chat_image_max_pixels and chat_image_max_bytes must be at least 1"
    );
    Ok(limits)
}

impl Default for GatewayConfig {
    fn default() -> Self {
        Self::from_file(FileConfig::default()).expect("defaults are valid")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_table_replaces_the_catalog() {
        let file: FileConfig = toml::from_str(
            r#"
            default_rpm = 5
            [[models]]
            id = "tiny"
            context_length = 4096
            max_output_tokens = 512
            [[models]]
            id = "old-tiny"
            alias_of = "tiny"
            context_length = 4096
            max_output_tokens = 512
            "#,
        )
        .unwrap();
        let cfg = GatewayConfig::from_file(file).unwrap();
        assert_eq!(cfg.default_rpm, 5);
        assert_eq!(cfg.catalog.entries().len(), 2);
        assert_eq!(cfg.catalog.resolve("old-tiny").unwrap().id, "tiny");
        assert!(cfg.catalog.resolve("service-pro").is_none());
    }

    #[test]
    fn unknown_keys_and_bad_values_are_refused() {
        assert!(toml::from_str::<FileConfig>("listn = \"1.2.3.4:5\"").is_err());
        let zero = FileConfig {
            default_rpm: Some(0),
            ..Default::default()
        };
        assert!(GatewayConfig::from_file(zero).is_err());
        let short = FileConfig {
            request_timeout_secs: Some(60),
            hold_ttl_secs: Some(30),
            ..Default::default()
        };
        assert!(GatewayConfig::from_file(short).is_err());
    }
}

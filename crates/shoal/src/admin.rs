//! `shoal admin`: operator commands against the store. Each prints only the value it names,
//! on one line of stdout; everything else goes to stderr, so scripts can capture the value.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use shoal_gateway::now_ms;
use shoal_gateway::FileConfig;
use shoal_store::money::LimitReset;
use shoal_store::{AccountId, KeyKind, KeyLimit, NewKey, Store};

use crate::StoreArgs;

#[derive(Args)]
pub struct AdminArgs {
    /// Configuration file (TOML); only its store settings are used here.
    #[arg(long, env = "SHOAL_CONFIG", global = true)]
    config: Option<PathBuf>,
    #[command(flatten)]
    store: StoreArgs,
    #[command(subcommand)]
    command: AdminCommand,
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Accounts.
    #[command(subcommand)]
    Account(AccountCommand),
    /// Purchased credit balance.
    #[command(subcommand)]
    Credits(CreditsCommand),
    /// API keys.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Plans with daily credits.
    #[command(subcommand)]
    Plan(PlanCommand),
    /// Tokens that let workers connect.
    #[command(subcommand, name = "worker-token")]
    WorkerToken(WorkerTokenCommand),
    /// The credit ledger.
    #[command(subcommand)]
    Ledger(LedgerCommand),
    /// Stablecoin deposits (the config file's [payments] section).
    #[command(subcommand)]
    Deposits(crate::deposits::DepositsCommand),
    /// Invite links that turn a browser tab into a worker (the page /worker).
    #[command(subcommand, name = "browser-invite")]
    BrowserInvite(BrowserInviteCommand),
    /// The swarm ring of a running gateway (`service-swarm`).
    #[command(subcommand)]
    Swarm(SwarmCommand),
    /// Blocked image prompts counted per key, and keys suspended from image generation.
    #[command(subcommand, name = "image-blocks")]
    ImageBlocks(ImageBlocksCommand),
}

#[derive(Subcommand)]
enum ImageBlocksCommand {
    /// Keys with blocked image prompts, suspended first: one line each, tab-separated
    /// account, key id (`session`: the dashboard), blocks in the window, the window's start
    /// (Unix ms), state (`suspended` or `counting`).
    List {
        #[arg(long)]
        account: Option<AccountId>,
    },
    /// Lift a suspension and forget the counts: of one key, of the dashboard session, or of
    /// every key of the account.
    Clear {
        #[arg(long)]
        account: AccountId,
        #[arg(long, conflicts_with = "session")]
        key_id: Option<i64>,
        /// The account's dashboard session rather than a key.
        #[arg(long)]
        session: bool,
    },
}

#[derive(Subcommand)]
enum SwarmCommand {
    /// Coverage, gaps and span nodes, read from the gateway's /metrics (the ring lives in the
    /// gateway's memory, not in the store); exits 1 while no model's layers are covered.
    Status {
        /// The running gateway's address.
        #[arg(long, env = "SHOAL_GATEWAY", default_value = "http://127.0.0.1:8080")]
        gateway: String,
        /// The gateway's `metrics_token`, if it has one.
        #[arg(long, env = "SHOAL_METRICS_TOKEN", hide_env_values = true)]
        metrics_token: Option<String>,
    },
}

#[derive(Subcommand)]
enum BrowserInviteCommand {
    /// Create an invite; prints the link (its token admits only browser workers, and only
    /// until it expires).
    Create {
        #[arg(long, default_value = "browser")]
        name: String,
        /// The gateway's public address, as browsers reach it.
        #[arg(long, default_value = "http://127.0.0.1:8080")]
        base_url: String,
        /// Hours until the invite stops admitting tabs.
        #[arg(long, default_value_t = 24)]
        hours: u32,
    },
}

#[derive(Subcommand)]
enum AccountCommand {
    /// Create an account; prints its id.
    Create {
        #[arg(long)]
        email: String,
    },
    /// The id of the account with this email (normalised as sign-in normalises it).
    Find {
        #[arg(long)]
        email: String,
    },
    /// Set the account's dashboard password, read from stdin (one line), and end all its
    /// login sessions: the password reset of a server without mail.
    #[command(name = "set-password")]
    SetPassword {
        #[arg(long)]
        email: String,
    },
    /// Disable an account: its keys and sessions stop working (keys within the gateway's
    /// auth cache time) and it cannot log in. Its balance and records stay.
    Disable(Which),
    /// Enable a disabled account again.
    Enable(Which),
    /// Delete an account: its email, password, sessions, key names and request records go,
    /// its keys are revoked; its balance and journal stay, anonymous (`ledger verify` holds).
    Delete(Which),
}

/// An account, by id or by email.
#[derive(Args)]
#[group(required = true, multiple = false)]
struct Which {
    /// The account's id.
    id: Option<AccountId>,
    /// The account's email (normalised as sign-in normalises it).
    #[arg(long)]
    email: Option<String>,
}

#[derive(Subcommand)]
enum CreditsCommand {
    /// Add purchased credits; prints the new balance.
    Grant {
        #[arg(long)]
        account: AccountId,
        #[arg(long, allow_negative_numbers = true)]
        credits: i64,
    },
}

#[derive(Subcommand)]
enum KeyCommand {
    /// Create an API key; prints the key, shown this once.
    Create {
        #[arg(long)]
        account: AccountId,
        #[arg(long)]
        name: Option<String>,
        /// Requests per minute for this key [default: the gateway's default_rpm].
        #[arg(long)]
        rpm: Option<u32>,
        /// A spending limit: at most N credits per window (see --limit-reset).
        #[arg(long, value_name = "N")]
        limit_credits: Option<i64>,
        /// When the limit's window starts again (UTC).
        #[arg(long, value_enum, requires = "limit_credits", default_value = "never")]
        limit_reset: Reset,
        /// A management key: it manages the account's keys (/api/v1/keys) and runs no requests.
        #[arg(long, conflicts_with = "limit_credits")]
        management: bool,
        /// Requests in flight at once [default: the gateway's key_concurrency].
        #[arg(long, value_name = "N")]
        concurrency: Option<u32>,
    },
    /// Change a key's spending limit (it takes effect at the key's next request).
    Update {
        /// The key's id (`key list`).
        key_id: i64,
        /// The new limit in credits per window.
        #[arg(long, value_name = "N", conflicts_with = "no_limit")]
        limit_credits: Option<i64>,
        /// Remove the key's limit.
        #[arg(long)]
        no_limit: bool,
        /// The limit's window [default: the key's current one, else never].
        #[arg(long, value_enum, conflicts_with = "no_limit")]
        limit_reset: Option<Reset>,
        /// Requests in flight at once (seen by gateways within auth_cache_ms).
        #[arg(long, value_name = "N", conflicts_with = "default_concurrency")]
        concurrency: Option<u32>,
        /// Back to the gateway's key_concurrency.
        #[arg(long)]
        default_concurrency: bool,
    },
    /// List an account's keys: one line each, tab-separated id, prefix, name, rpm, state,
    /// kind, limit (`-`, or credits/window), concurrency.
    List {
        #[arg(long)]
        account: AccountId,
    },
    /// Revoke a key; it stops working within a second.
    Revoke {
        #[arg(long)]
        key_id: i64,
    },
}

/// A key limit's window, as the command line names it.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Reset {
    Daily,
    Weekly,
    Monthly,
    Never,
}

impl From<Reset> for LimitReset {
    fn from(r: Reset) -> Self {
        match r {
            Reset::Daily => LimitReset::Daily,
            Reset::Weekly => LimitReset::Weekly,
            Reset::Monthly => LimitReset::Monthly,
            Reset::Never => LimitReset::Never,
        }
    }
}

#[derive(Subcommand)]
enum PlanCommand {
    /// Give an account N daily credits (0 removes the plan).
    Set {
        #[arg(long)]
        account: AccountId,
        #[arg(long, allow_negative_numbers = true)]
        daily_credits: i64,
    },
}

#[derive(Subcommand)]
enum WorkerTokenCommand {
    /// Create a worker token; prints the token, shown this once.
    Create {
        #[arg(long)]
        name: String,
    },
}

#[derive(Subcommand)]
enum LedgerCommand {
    /// Recompute every account from the journal; exits non-zero on any difference.
    Verify,
}

pub async fn run(args: AdminArgs) -> anyhow::Result<ExitCode> {
    if let AdminCommand::Swarm(SwarmCommand::Status {
        gateway,
        metrics_token,
    }) = &args.command
    {
        return crate::swarm::status(gateway, metrics_token.as_deref()).await;
    }
    let mut file = match &args.config {
        Some(path) => FileConfig::load(path)?,
        None => FileConfig::default(),
    };
    let store = args.store.open(&file).await?;
    let result = match args.command {
        AdminCommand::Deposits(cmd) => crate::deposits::admin(&store, &mut file, cmd).await,
        command => execute(&store, command).await,
    };
    store.close().await;
    result
}

async fn execute(store: &Store, command: AdminCommand) -> anyhow::Result<ExitCode> {
    let now = now_ms();
    match command {
        AdminCommand::Account(AccountCommand::Create { email }) => {
            println!("{}", store.create_account(&email, now).await?);
        }
        AdminCommand::Account(AccountCommand::Find { email }) => {
            let login = (store.login_of(&email).await?)
                .ok_or_else(|| anyhow::anyhow!("no account with email {email}"))?;
            println!("{}", login.account_id);
        }
        AdminCommand::Account(AccountCommand::SetPassword { email }) => {
            set_password(store, &email).await?;
        }
        AdminCommand::Account(AccountCommand::Disable(which)) => {
            let account = account_of(store, which).await?;
            store.disable_account(account, now).await?;
            eprintln!("account {account} disabled");
        }
        AdminCommand::Account(AccountCommand::Enable(which)) => {
            let account = account_of(store, which).await?;
            store.enable_account(account).await?;
            eprintln!("account {account} enabled");
        }
        AdminCommand::Account(AccountCommand::Delete(which)) => {
            let account = account_of(store, which).await?;
            store.delete_account(account, now).await?;
            eprintln!("account {account} deleted; its ledger rows are kept, anonymous");
        }
        AdminCommand::Credits(CreditsCommand::Grant { account, credits }) => {
            println!("{}", store.grant_credits(account, credits, now).await?);
        }
        AdminCommand::Key(cmd) => key(store, cmd, now).await?,
        AdminCommand::Plan(PlanCommand::Set {
            account,
            daily_credits,
        }) => {
            store.set_plan(account, daily_credits, now).await?;
            eprintln!("account {account}: {daily_credits} daily credits");
        }
        AdminCommand::WorkerToken(WorkerTokenCommand::Create { name }) => {
            let token = store.create_worker_token(&name, now).await?;
            eprintln!(
                "worker token id {}: store it now, it is not shown again",
                token.id
            );
            println!("{}", token.token);
        }
        AdminCommand::Deposits(_) => unreachable!("run() handles deposits"),
        AdminCommand::Swarm(_) => unreachable!("run() handles swarm"),
        AdminCommand::BrowserInvite(BrowserInviteCommand::Create {
            name,
            base_url,
            hours,
        }) => browser_invite(store, &name, &base_url, hours, now).await?,
        AdminCommand::Ledger(LedgerCommand::Verify) => return verify_ledger(store).await,
        AdminCommand::ImageBlocks(cmd) => image_blocks(store, cmd).await?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The account an operator named, by id or by email.
async fn account_of(store: &Store, which: Which) -> anyhow::Result<AccountId> {
    match (which.id, which.email) {
        (Some(id), _) => Ok(id),
        (None, Some(email)) => Ok((store.login_of(&email).await?)
            .ok_or_else(|| anyhow::anyhow!("no account with email {email}"))?
            .account_id),
        (None, None) => anyhow::bail!("name the account: its id, or --email"),
    }
}

/// `image-blocks list` prints one line per key with blocked image prompts; `clear` lifts
/// suspensions and forgets the counts.
async fn image_blocks(store: &Store, cmd: ImageBlocksCommand) -> anyhow::Result<()> {
    let (account, key_id, session) = match cmd {
        ImageBlocksCommand::List { account } => return list_image_blocks(store, account).await,
        ImageBlocksCommand::Clear {
            account,
            key_id,
            session,
        } => (account, key_id, session),
    };
    let which = match (key_id, session) {
        (Some(k), _) => Some(Some(k)),
        (None, true) => Some(None),
        (None, false) => None,
    };
    store.clear_image_blocks(account, which).await?;
    eprintln!("account {account}: image blocks cleared");
    Ok(())
}

async fn list_image_blocks(store: &Store, account: Option<AccountId>) -> anyhow::Result<()> {
    for b in store.image_blocks(account).await? {
        let key = b
            .key_id
            .map(|k| k.to_string())
            .unwrap_or_else(|| "session".into());
        let state = if b.suspended_at.is_some() {
            "suspended"
        } else {
            "counting"
        };
        println!(
            "{}\t{}\t{}\t{}\t{}",
            b.account_id, key, b.blocks, b.window_start, state
        );
    }
    Ok(())
}

/// `key create`, `update`, `list` and `revoke`.
async fn key(store: &Store, cmd: KeyCommand, now: i64) -> anyhow::Result<()> {
    match cmd {
        KeyCommand::Create {
            account,
            name,
            rpm,
            limit_credits,
            limit_reset,
            management,
            concurrency,
        } => {
            let new = NewKey {
                name: name.as_deref(),
                rpm,
                kind: if management {
                    KeyKind::Management
                } else {
                    KeyKind::Inference
                },
                limit: limit_credits.map(|credits| KeyLimit {
                    credits,
                    reset: limit_reset.into(),
                }),
            };
            let key = store.create_key(account, &new, now).await?;
            if concurrency.is_some() {
                store
                    .set_key_concurrency(account, key.id, concurrency)
                    .await?;
            }
            eprintln!(
                "key id {} ({}…): store it now, it is not shown again",
                key.id, key.prefix
            );
            println!("{}", key.key);
        }
        KeyCommand::Update {
            key_id,
            limit_credits,
            no_limit,
            limit_reset,
            concurrency,
            default_concurrency,
        } => {
            if concurrency.is_some() || default_concurrency {
                let account = store.key_usage(key_id, now).await?.account_id;
                store
                    .set_key_concurrency(account, key_id, concurrency)
                    .await?;
                match concurrency {
                    Some(n) => eprintln!("key {key_id}: {n} requests in flight at once"),
                    None => eprintln!("key {key_id}: the gateway's key_concurrency"),
                }
            }
            if limit_credits.is_some() || no_limit || limit_reset.is_some() {
                update_key(store, key_id, (limit_credits, no_limit, limit_reset), now).await?;
            } else if concurrency.is_none() && !default_concurrency {
                anyhow::bail!(
                    "nothing to change: give --limit-credits, --no-limit, --limit-reset, \
                     --concurrency or --default-concurrency"
                );
            }
        }
        KeyCommand::List { account } => list_keys(store, account).await?,
        KeyCommand::Revoke { key_id } => {
            store.revoke_api_key(key_id, now).await?;
            eprintln!("key {key_id} revoked");
        }
    }
    Ok(())
}

/// `key update`: the key's new limit, from `(--limit-credits, --no-limit, --limit-reset)`.
async fn update_key(
    store: &Store,
    key_id: i64,
    (credits, no_limit, reset): (Option<i64>, bool, Option<Reset>),
    now: i64,
) -> anyhow::Result<()> {
    // The operator names the key alone; the store's key calls take its account too.
    let account = store.key_usage(key_id, now).await?.account_id;
    let current = store.api_key(account, key_id).await?.limit;
    let limit = match (credits, no_limit, reset) {
        (_, true, _) => None,
        (Some(credits), false, reset) => Some(KeyLimit {
            credits,
            reset: reset
                .map(LimitReset::from)
                .or(current.map(|l| l.reset))
                .unwrap_or(LimitReset::Never),
        }),
        (None, false, Some(reset)) => match current {
            Some(l) => Some(KeyLimit {
                reset: reset.into(),
                ..l
            }),
            None => anyhow::bail!("key {key_id} has no limit: give --limit-credits"),
        },
        (None, false, None) => return Ok(()),
    };
    store.set_key_limit(account, key_id, limit).await?;
    match limit {
        Some(l) => eprintln!("key {key_id}: {} credits {}", l.credits, l.reset.as_str()),
        None => eprintln!("key {key_id}: no limit"),
    }
    Ok(())
}

/// One line per key of `account`: id, prefix, name, rpm, state, kind, limit.
async fn list_keys(store: &Store, account: AccountId) -> anyhow::Result<()> {
    for k in store.list_api_keys(account).await? {
        let state = if k.revoked_at.is_some() {
            "revoked"
        } else {
            "active"
        };
        let rpm = k
            .rpm
            .map(|r| r.to_string())
            .unwrap_or_else(|| "default".into());
        let name = k.name.as_deref().unwrap_or("-");
        let limit = k
            .limit
            .map(|l| format!("{}/{}", l.credits, l.reset.as_str()))
            .unwrap_or_else(|| "-".into());
        let kind = k.kind.as_str();
        let concurrency = (k.concurrency)
            .map(|c| c.to_string())
            .unwrap_or_else(|| "default".into());
        println!(
            "{}\t{}\t{name}\t{rpm}\t{state}\t{kind}\t{limit}\t{concurrency}",
            k.id, k.prefix
        );
    }
    Ok(())
}

/// Prints the worker page's link with a new browser invite for `hours` (at least one).
async fn browser_invite(
    store: &Store,
    name: &str,
    base_url: &str,
    hours: u32,
    now: i64,
) -> anyhow::Result<()> {
    let expires = now + i64::from(hours.max(1)) * 3_600_000;
    let token = store.create_browser_invite(name, expires, now).await?;
    eprintln!(
        "browser invite id {}: valid for {} hours; the token is in the link's fragment, \
         which browsers never send to a server",
        token.id,
        hours.max(1)
    );
    println!(
        "{}/worker#invite={}",
        base_url.trim_end_matches('/'),
        token.token
    );
    Ok(())
}

/// `ok`, or the discrepancies and a failing status.
async fn verify_ledger(store: &Store) -> anyhow::Result<ExitCode> {
    let report = store.verify_ledger().await?;
    eprintln!("checked {} accounts", report.accounts_checked);
    if !report.discrepancies.is_empty() {
        for d in &report.discrepancies {
            eprintln!("account {}: {}", d.account_id, d.what);
        }
        println!("{} discrepancies", report.discrepancies.len());
        return Ok(ExitCode::FAILURE);
    }
    println!("ok");
    Ok(ExitCode::SUCCESS)
}

async fn set_password(store: &Store, email: &str) -> anyhow::Result<()> {
    use shoal_dashboard::{hash_password, MAX_PASSWORD, MIN_PASSWORD};
    let login = store
        .login_of(email)
        .await?
        .ok_or_else(|| anyhow::anyhow!("no account with email {email}"))?;
    eprintln!("new password for {email} (one line on stdin):");
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    let new = line.trim_end_matches(['\r', '\n']);
    let n = new.chars().count();
    anyhow::ensure!(
        (MIN_PASSWORD..=MAX_PASSWORD).contains(&n),
        "a password must be {MIN_PASSWORD} to {MAX_PASSWORD} characters"
    );
    let hash = hash_password(new.to_string()).await?;
    store.set_password(login.account_id, &hash).await?;
    eprintln!(
        "password set; every session of account {} ended",
        login.account_id
    );
    Ok(())
}

//! Mail over SMTP (`lettre`, TLS by rustls): the password reset link, and the notice to an
//! address that someone tried to sign up with again.
//!
//! Configured by the `[smtp]` table; without it the dashboard sends no mail and its reset
//! page points to `shoal admin account set-password`. The link in a mail is built from
//! `site_url`, never from the request's `Host` header, which a client could set to its own
//! site to harvest reset tokens.

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use serde::Deserialize;

/// How the connection to the SMTP server is secured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SmtpTls {
    /// Plain connection, upgraded with STARTTLS (required) [default; port 587].
    #[default]
    Starttls,
    /// TLS from the first byte ("SMTPS"; port 465).
    Tls,
    /// No encryption: only for a relay on the same host or a test server (port 25).
    None,
}

/// The `[smtp]` table.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpConfig {
    pub host: String,
    /// [default: 587 for `starttls`, 465 for `tls`, 25 for `none`]
    pub port: Option<u16>,
    #[serde(default)]
    pub tls: SmtpTls,
    pub username: Option<String>,
    pub password: Option<String>,
    /// The sender, e.g. `Shoal <no-reply@example.com>`.
    pub from: String,
    /// The dashboard's public address, e.g. `https://shoal.example.com`: reset links start
    /// with it.
    pub site_url: String,
}

impl std::fmt::Debug for SmtpConfig {
    // The password stays out of logs and panic messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("username", &self.username)
            .field("from", &self.from)
            .field("site_url", &self.site_url)
            .finish_non_exhaustive()
    }
}

/// How long a reset link works.
pub const RESET_TTL: Duration = Duration::from_secs(3600);
/// How long sending one mail may take.
const SEND_TIMEOUT: Duration = Duration::from_secs(30);

impl SmtpConfig {
    /// Checks what can be checked without connecting: the sender parses, the site URL is
    /// an http(s) address.
    pub fn validate(mut self) -> anyhow::Result<SmtpConfig> {
        anyhow::ensure!(!self.host.trim().is_empty(), "[smtp] host is empty");
        self.from
            .parse::<Mailbox>()
            .map_err(|e| anyhow::anyhow!("[smtp] from {:?}: {e}", self.from))?;
        let site = self.site_url.trim_end_matches('/').to_string();
        anyhow::ensure!(
            (site.starts_with("https://") || site.starts_with("http://"))
                && !site.contains(char::is_whitespace),
            "[smtp] site_url must be the dashboard's address, e.g. https://shoal.example.com"
        );
        anyhow::ensure!(
            self.username.is_some() == self.password.is_some(),
            "[smtp] username and password go together"
        );
        self.site_url = site;
        Ok(self)
    }

    /// The address a reset token opens.
    pub fn reset_link(&self, token: &str) -> String {
        format!("{}/dashboard/reset/{token}", self.site_url)
    }

    fn transport(&self) -> anyhow::Result<AsyncSmtpTransport<Tokio1Executor>> {
        let builder = match self.tls {
            SmtpTls::Starttls => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&self.host)?,
            SmtpTls::Tls => AsyncSmtpTransport::<Tokio1Executor>::relay(&self.host)?,
            SmtpTls::None => AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&self.host),
        };
        let port = self.port.unwrap_or(match self.tls {
            SmtpTls::Starttls => 587,
            SmtpTls::Tls => 465,
            SmtpTls::None => 25,
        });
        let mut builder = builder.port(port).timeout(Some(SEND_TIMEOUT));
        if let (Some(user), Some(password)) = (&self.username, &self.password) {
            builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
        }
        Ok(builder.build())
    }

    /// Tells `to`, which has an account, that someone tried to sign up with it.
    pub async fn send_account_exists(&self, to: &str) -> anyhow::Result<()> {
        let site = &self.site_url;
        let body = format!(
            "Someone tried to create a Shoal account with {to}, which already has one.\n\n\
             If it was you, log in at {site}/dashboard/login, or choose a new password at\n\
             {site}/dashboard/reset.\n\n\
             If it was not you, ignore this mail: nothing was changed.\n"
        );
        self.send(to, "You already have a Shoal account", body)
            .await
    }

    /// Sends the reset mail with `link` to `to`.
    pub async fn send_reset(&self, to: &str, link: &str) -> anyhow::Result<()> {
        let minutes = RESET_TTL.as_secs() / 60;
        let body = format!(
            "Someone asked to reset the password of the Shoal account {to}.\n\n\
             To choose a new password, open this link within {minutes} minutes:\n\n\
             {link}\n\n\
             The link works once. Setting a new password logs the account out everywhere.\n\
             If you did not ask for this, ignore this mail: your password stays as it is.\n"
        );
        self.send(to, "Reset your Shoal password", body).await
    }

    async fn send(&self, to: &str, subject: &str, body: String) -> anyhow::Result<()> {
        let message = Message::builder()
            .from(self.from.parse()?)
            .to(to.parse()?)
            .subject(subject)
            .header(ContentType::TEXT_PLAIN)
            .body(body)?;
        self.transport()?.send(message).await?;
        Ok(())
    }
}

/// What to log of a failed reset: an SMTP server's reply is reduced to its code, because its
/// text may quote the recipient's address; other errors (the store, a malformed address or
/// message) name no address.
pub fn failure(e: &anyhow::Error) -> String {
    match e.downcast_ref::<lettre::transport::smtp::Error>() {
        Some(smtp) => match smtp.status() {
            Some(code) => format!("the SMTP server answered {code}"),
            None => "the SMTP connection or its TLS failed".to_owned(),
        },
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(toml_text: &str) -> anyhow::Result<SmtpConfig> {
        toml::from_str::<SmtpConfig>(toml_text)?.validate()
    }

    #[test]
    fn settings_are_checked_and_the_password_never_printed() {
        let c = config(
            r#"host = "mail.example.com"
               username = "u"
               password = "hunter2-secret"
               from = "Shoal <no-reply@example.com>"
               site_url = "https://shoal.example.com/""#,
        )
        .unwrap();
        assert_eq!(c.tls, SmtpTls::Starttls);
        assert_eq!(
            c.reset_link("shoal-r-x"),
            "https://shoal.example.com/dashboard/reset/shoal-r-x"
        );
        assert!(!format!("{c:?}").contains("hunter2"));
        let bad_from = r#"host = "h"
            from = "not an address"
            site_url = "https://s""#;
        assert!(config(bad_from).is_err());
        let bad_site = r#"host = "h"
            from = "a@b.c"
            site_url = "shoal.example.com""#;
        assert!(config(bad_site).is_err());
        let lone_user = r#"host = "h"
            from = "a@b.c"
            username = "u"
            site_url = "http://s""#;
        assert!(config(lone_user).is_err());
        assert!(
            config("host = \"h\"\nfrom = \"a@b.c\"\nsite_url = \"http://s\"\ntls = \"ssl\"")
                .is_err()
        );
    }
}

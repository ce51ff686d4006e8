//! The macros every query of the store goes through, so that each statement is written
//! once for both backends (`$n` placeholders work on SQLite too). Macros rather than
//! functions taking async closures: the futures they make must be `Send` (a gateway's
//! handlers and the store's own tasks run on a work-stealing runtime), which the compiler
//! cannot yet prove for an async closure's future over every lifetime of its argument.

/// Evaluate `$body` (a `DbResult`) with `$c` bound to a connection leased from `$conns`
/// (`&Conns`), within `$deadline`. When it fails on a session that ended and `$retry`
/// allows, it runs once more on a fresh connection: a restart of the server fails no
/// request that the server had not started. A `DbResult` comes out.
macro_rules! leased {
    ($conns:expr, $retry:expr, $deadline:expr, $c:ident => $body:expr) => {{
        let conns = $conns;
        let deadline: std::time::Duration = $deadline;
        let mut again = true;
        loop {
            let mut lease = match conns.acquire().await {
                Ok(lease) => lease,
                Err(f) => break Err(f),
            };
            let out: $crate::fault::DbResult<_> = match tokio::time::timeout(deadline, async {
                let $c = &mut *lease;
                $body
            })
            .await
            {
                Ok(out) => out,
                Err(_) => {
                    // Mid-statement: nobody knows what state the session is in.
                    lease.forget();
                    break Err($crate::conns::no_answer(deadline));
                }
            };
            match out {
                Err(f) if lease.check(&f) && again && $retry.allows(&f) => again = false,
                out => break out,
            }
        }
    }};
}

/// [`leased!`] on a PostgreSQL store's pooled connections.
macro_rules! pg {
    ($p:expr, $retry:expr, $c:ident => $body:expr) => {{
        let p: &$crate::postgres::PgStore = $p;
        leased!(&*p.conns, $retry, p.deadline, $c => $body)
    }};
}

/// Evaluate `$body` (a `DbResult`) with `$c` bound to a reading connection (`&mut`), once
/// more on a fresh connection if the first one's session had ended; a `Result` comes out.
macro_rules! read {
    ($store:expr, $c:ident => $body:expr) => {{
        let out: $crate::fault::DbResult<_> = match &$store.backend {
            $crate::store::Backend::Sqlite(s) => leased!(
                s.readers(),
                $crate::conns::Retry::Idempotent,
                $crate::sqlite::READ_DEADLINE,
                $c => $body
            ),
            $crate::store::Backend::Postgres(p) => {
                pg!(p, $crate::conns::Retry::Idempotent, $c => $body)
            }
        };
        out.map_err($crate::StoreError::from)
    }};
}

/// One write statement with `$n` placeholders and owned arguments, returning at most one
/// row whose first column is an id: on SQLite a job of the writer thread, on PostgreSQL one
/// autocommit statement, sent again on a fresh connection when `$retry` allows. A
/// `DbResult` comes out.
macro_rules! write_id {
    ($store:expr, $retry:expr, $sql:expr $(, $arg:expr)* $(,)?) => {
        match &$store.backend {
            $crate::store::Backend::Sqlite(s) => {
                s.write_returning_id($sql, vec![$(rusqlite::types::Value::from($arg)),*])
                    .await
            }
            $crate::store::Backend::Postgres(p) => {
                p.write_returning_id($retry, $sql, vec![$($crate::postgres::Arg::from($arg)),*])
                    .await
            }
        }
    };
}

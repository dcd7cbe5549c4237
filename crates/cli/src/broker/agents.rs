//! `catui agents [--json] [--watch]`: every session on the broker, on every
//! machine, with its state, what it waits for and since when.

use std::io::Write;

use catui_broker::{Broker, Registry, SessionEntry};
use futures::StreamExt;

pub async fn run(broker: &Broker, json: bool, watch: bool) -> u8 {
    let registry = match Registry::open(broker).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("catui: {e}");
            return 1;
        }
    };
    let entries = match registry.list().await {
        Ok(e) => e,
        Err(e) => {
            eprintln!("catui: {e}");
            return 1;
        }
    };
    let mut out = crate::output::stdout();
    let written = if json && !watch {
        serde_json::to_string_pretty(&entries)
            .map_err(std::io::Error::other)
            .and_then(|text| writeln!(out, "{}", crate::output::json_line(&text)))
    } else if json {
        entries.iter().try_for_each(|e| json_line(&mut out, e))
    } else {
        table(&mut out, &entries)
    };
    if written.is_err() {
        return 0; // stdout closed
    }
    drop(out);
    if !watch {
        return 0;
    }
    let mut changes = match registry.watch().await {
        Ok(w) => Box::pin(w),
        Err(e) => {
            eprintln!("catui: {e}");
            return 1;
        }
    };
    while let Some(entry) = changes.next().await {
        let entry = entry.as_of(chrono::Utc::now());
        let mut out = crate::output::stdout();
        let written = if json {
            json_line(&mut out, &entry)
        } else {
            writeln!(out, "{}", row(&entry)).and_then(|()| out.flush())
        };
        if written.is_err() {
            return 0;
        }
    }
    0
}

fn json_line(out: &mut impl Write, entry: &SessionEntry) -> std::io::Result<()> {
    let line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
    writeln!(out, "{}", crate::output::json_line(&line))?;
    out.flush()
}

/// What `catui agents` prints, as text (also the terminal UI's `/agents`).
pub fn table_text(entries: &[SessionEntry]) -> String {
    let mut out = Vec::new();
    let _ = table(&mut out, entries);
    String::from_utf8_lossy(&out).into_owned()
}

fn table(out: &mut impl Write, entries: &[SessionEntry]) -> std::io::Result<()> {
    if entries.is_empty() {
        return writeln!(out, "No sessions on the broker.");
    }
    writeln!(
        out,
        "{:<16} {:<10} {:<14} {:<9} {:<20} {:<8} WAITING FOR / PROJECT",
        "STATE", "SESSION", "HOST", "KIND", "NAME", "SINCE"
    )?;
    for e in entries {
        writeln!(out, "{}", row(e))?;
    }
    Ok(())
}

fn row(e: &SessionEntry) -> String {
    let name = match (&e.name, &e.team) {
        (Some(n), Some(t)) => format!("{n}@{t}"),
        (Some(n), None) => n.clone(),
        _ => e.user.clone(),
    };
    let since = e.since.get(11..19).unwrap_or(&e.since);
    let what = e
        .waiting_for
        .clone()
        .or_else(|| e.detail.clone())
        .unwrap_or_else(|| e.project.clone());
    format!(
        "{:<16} {:<10} {:<14} {:<9} {:<20} {:<8} {what}",
        e.state.as_str(),
        e.session_id.get(..8).unwrap_or(&e.session_id),
        e.host,
        e.kind,
        name,
        since
    )
}

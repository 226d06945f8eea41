//! `mcpcore events list|poll|stream`: the Events extension (SEP-3415) from the command line.
//! `list` shows a server's event types; `poll` polls one once (from `--cursor`, or from now),
//! or with `--follow` on and on at the server's pace; `stream` holds an `events/stream` open
//! and prints each occurrence as it comes. With JSON output each poll result or stream item is
//! one line of JSON (NDJSON), so a pipe reads them as they come. `--count N` stops after N
//! occurrences; Ctrl-C stops (130).

use crate::commands::{server_info, session, split_url, Done, ListArgs};
use crate::connect::Conn;
use crate::output;
use clap::{Args, Subcommand};
use mcpcore::client::{Client, StreamItem};
use mcpcore::Error;
use serde_json::{json, Value};
use std::process::ExitCode;

/// What `mcpcore events` does.
#[derive(Subcommand)]
pub(crate) enum EventsCommand {
    /// List the event types of a server.
    List(ListArgs),
    /// Poll an event type: once, or on and on with --follow.
    Poll(EventArgs),
    /// Stream an event type, printing each occurrence as it comes.
    Stream(EventArgs),
}

/// `poll` and `stream`.
#[derive(Args)]
pub(crate) struct EventArgs {
    /// The event type's name.
    name: String,
    /// Its subscription arguments: one JSON object or key=value pairs (typed by its
    /// inputSchema); the server's URL may come last.
    #[arg(value_name = "ARGS")]
    args: Vec<String>,
    /// Resume from this cursor (from a previous poll or stream) instead of from now.
    #[arg(long)]
    cursor: Option<String>,
    /// Stop after this many occurrences.
    #[arg(long)]
    count: Option<usize>,
    /// poll: go on polling at the server's pace (nextPollMs, at least a second apart).
    #[arg(long)]
    follow: bool,
    #[command(flatten)]
    conn: Conn,
}

/// Runs `mcpcore events …`.
pub(crate) async fn main(command: EventsCommand) -> ExitCode {
    match command {
        EventsCommand::List(a) => list(a).await,
        EventsCommand::Poll(a) => poll(a).await,
        EventsCommand::Stream(a) => stream(a).await,
    }
}

async fn list(a: ListArgs) -> ExitCode {
    session(a.conn, a.url, |client| async move {
        let (info, version) = server_info(&client);
        let mut text = output::header(&info, &version);
        if client.events_support().is_none() {
            text.push_str("(the server does not declare the Events extension)\n");
            return Ok(Done {
                json: json!({"protocolVersion": version, "serverInfo": info, "events": []}),
                text,
                code: 0,
            });
        }
        let types = client.list_events().await?;
        text.push_str(&format!("{} event types\n", types.len()));
        for t in &types {
            let modes: Vec<&str> = t.delivery.iter().map(|d| d.as_str()).collect();
            text.push_str(&format!(
                "  {}  [{}]  {}\n",
                t.name,
                modes.join(", "),
                t.description.as_deref().unwrap_or("")
            ));
        }
        let json = json!({"protocolVersion": version, "serverInfo": info, "events": types});
        Ok(Done { json, text, code: 0 })
    })
    .await
}

/// The type's arguments from the command line, typed by its inputSchema.
async fn arguments(client: &Client, name: &str, items: &[String]) -> Result<Value, Error> {
    let types = client.list_events().await?;
    let schema = types.iter().find(|t| t.name == name).map(|t| &t.input_schema);
    crate::args::arguments(items, schema).map_err(Error::invalid_input)
}

/// Prints one line per occurrence (text), or the value as one JSON line.
fn emit(json_out: bool, value: &Value, text: String) {
    if json_out {
        output::human(&format!("{value}\n"));
    } else {
        output::human(&text);
    }
}

fn occurrence_line(o: &mcpcore::protocol::events::EventOccurrence) -> String {
    format!("{}  {}  {}  {}\n", o.timestamp, o.name, o.event_id, o.data)
}

async fn poll(a: EventArgs) -> ExitCode {
    let json_out = a.conn.wants_json();
    let (items, url) = split_url(a.args);
    let (name, cursor, count, follow) = (a.name, a.cursor, a.count, a.follow);
    session(a.conn, url, |client| async move {
        let args = arguments(&client, &name, &items).await?;
        if !follow {
            let r = client.poll_events(&name, args, cursor, count).await?;
            let mut text: String = r.events.iter().map(occurrence_line).collect();
            text.push_str(&format!("cursor: {}\n", r.cursor.as_deref().unwrap_or("null")));
            return Ok(Done { json: serde_json::to_value(&r).expect("serializable"), text, code: 0 });
        }
        let mut poller = client.poller(&name, args, cursor);
        let mut seen = 0usize;
        loop {
            let r = poller.next().await?;
            seen += r.events.len();
            let text: String = r.events.iter().map(occurrence_line).collect();
            emit(json_out, &serde_json::to_value(&r).expect("serializable"), text);
            if count.is_some_and(|n| seen >= n) {
                return Ok(Done::printed());
            }
        }
    })
    .await
}

async fn stream(a: EventArgs) -> ExitCode {
    let json_out = a.conn.wants_json();
    let (items, url) = split_url(a.args);
    let (name, cursor, count) = (a.name, a.cursor, a.count);
    session(a.conn, url, |client| async move {
        let args = arguments(&client, &name, &items).await?;
        let mut stream = client.stream_events(&name, args, cursor).await?;
        let mut seen = 0usize;
        while let Some(item) = stream.next().await {
            let text = match &item {
                StreamItem::Event(o) => occurrence_line(o),
                StreamItem::Active { cursor, truncated } => {
                    let gap = if *truncated { " (some occurrences were dropped)" } else { "" };
                    format!("streaming {name} from {}{gap}\n", cursor.as_deref().unwrap_or("now"))
                }
                StreamItem::Heartbeat { .. } => String::new(),
                StreamItem::Error(e) => format!("error: {} ({})\n", e.message, e.code),
                StreamItem::Terminated(e) => format!("terminated: {} ({})\n", e.message, e.code),
            };
            emit(json_out, &item.to_json(), text);
            if matches!(item, StreamItem::Event(_)) {
                seen += 1;
                if count.is_some_and(|n| seen >= n) {
                    break;
                }
            }
        }
        Ok(Done::printed())
    })
    .await
}

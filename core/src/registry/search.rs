//! Tool search for large catalogues (issue 35): in this mode `tools/list` shows the pinned tools
//! and one more, `search_tools`, which ranks the whole catalogue for a query, BM25 over each
//! tool's name, title, description and argument names (or by a regular expression), and
//! answers the best matches with their schemas. Every tool stays callable by name, listed or
//! not, and `notifications/tools/list_changed` keeps working (the index is rebuilt on the next
//! search after a change).
//!
//! ```
//! use mcpcore::registry::{search::ToolSearch, ToolRegistry};
//! let tools = std::sync::Arc::new(ToolRegistry::new());
//! let search = ToolSearch::install(&tools, ["echo"]).unwrap();
//! assert!(search.listed("search_tools") && search.listed("echo") && !search.listed("other"));
//! ```

use super::ToolRegistry;
use crate::context::{Access, Entry};
use crate::error::Result;
use crate::protocol::{CallToolResult, Tool};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, Weak};

/// The name of the search tool.
pub const SEARCH_TOOL: &str = "search_tools";

/// Results per search unless the caller asks for another number (at most [`MAX_LIMIT`]).
pub const DEFAULT_LIMIT: usize = 5;

/// The most results one search returns.
pub const MAX_LIMIT: usize = 50;

/// The BM25 parameters (the usual ones).
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// The longest regular expression accepted, and the size its compiled program may reach.
const MAX_PATTERN: usize = 512;
const MAX_PROGRAM: usize = 1 << 20;

/// A registry's tool search: which tools `tools/list` shows, and the index `search_tools` uses.
pub struct ToolSearch {
    pinned: BTreeSet<String>,
    index: Mutex<Option<Arc<Index>>>,
    _changes: crate::changes::Subscription,
}

impl std::fmt::Debug for ToolSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSearch").field("pinned", &self.pinned).finish()
    }
}

impl ToolSearch {
    /// Registers `search_tools` in `registry` and returns the mode: `pinned` (and
    /// `search_tools`) are what `tools/list` shows (give it to the server's configuration,
    /// [`ServerConfig::tool_search`](crate::engine::ServerConfig::tool_search)).
    pub fn install<I, S>(registry: &Arc<ToolRegistry>, pinned: I) -> Result<Arc<ToolSearch>>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let search = Arc::new_cyclic(|me: &Weak<ToolSearch>| {
            let me = me.clone();
            let changes = registry.changes().subscribe(move |_| {
                if let Some(s) = me.upgrade() {
                    *s.index.lock().expect("lock") = None;
                }
            });
            ToolSearch {
                pinned: pinned.into_iter().map(Into::into).collect(),
                index: Mutex::default(),
                _changes: changes,
            }
        });
        let tool = Tool::new(
            SEARCH_TOOL,
            "Finds tools of this server by what they do: returns the best matches for the query \
             with their input schemas; call a match by its name. The tool list shows only a few \
             tools: search before concluding a tool does not exist.",
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What the tool should do, in words (or a regular expression with regex: true)."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": "How many matches (default 5)."},
                    "regex": {"type": "boolean", "description": "Match the query as a regular expression on names and descriptions."}
                },
                "required": ["query"]
            }),
        );
        let (tools, me) = (Arc::downgrade(registry), Arc::downgrade(&search));
        registry.register(tool, move |args: super::Arguments, ctx: super::ToolContext| {
            let (tools, me) = (tools.upgrade(), me.upgrade());
            async move {
                let (Some(tools), Some(me)) = (tools, me) else {
                    return Ok(CallToolResult::error("tool search is no longer available"));
                };
                // The caller's own catalogue: a tool hidden from it is not found either.
                let seen =
                    |name: &str| ctx.origin().is_none_or(|o| o.allows(&Entry::Tool(name), Access::List));
                Ok(me.answer(&tools, &args, &seen))
            }
        })?;
        Ok(search)
    }

    /// True when `tools/list` shows the tool `name`.
    pub fn listed(&self, name: &str) -> bool {
        name == SEARCH_TOOL || self.pinned.contains(name)
    }

    /// The tools best matching `query` (at most `limit`), best first: BM25, or with `regex` the
    /// tools whose name, or whose name, title, description and arguments as one text, match the
    /// regular expression (by name order). Only tools `seen` admits count (the caller's
    /// catalogue, [`crate::context::CatalogFilter`]).
    pub fn search(
        &self,
        registry: &ToolRegistry,
        query: &str,
        limit: usize,
        regex: bool,
        seen: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<Tool>> {
        let index = self.index(registry);
        let limit = limit.clamp(1, MAX_LIMIT);
        if regex {
            if query.len() > MAX_PATTERN {
                return Err(crate::Error::invalid_input(format!(
                    "the pattern is longer than {MAX_PATTERN} characters"
                )));
            }
            let re = regex::RegexBuilder::new(query)
                .case_insensitive(true)
                .size_limit(MAX_PROGRAM)
                .build()
                .map_err(|e| crate::Error::invalid_input(format!("not a regular expression: {e}")))?;
            let hits = index
                .tools
                .iter()
                .filter(|d| (re.is_match(&d.tool.name) || re.is_match(&d.text)) && seen(&d.tool.name))
                .take(limit);
            return Ok(hits.map(|d| d.tool.clone()).collect());
        }
        let ranked = index.rank(query).into_iter().map(|i| &index.tools[i].tool);
        Ok(ranked.filter(|t| seen(&t.name)).take(limit).cloned().collect())
    }

    fn index(&self, registry: &ToolRegistry) -> Arc<Index> {
        let mut slot = self.index.lock().expect("lock");
        slot.get_or_insert_with(|| Arc::new(Index::build(registry.list()))).clone()
    }

    fn answer(
        &self,
        registry: &ToolRegistry,
        args: &super::Arguments,
        seen: &dyn Fn(&str) -> bool,
    ) -> CallToolResult {
        let Some(query) = args.get("query").and_then(Value::as_str) else {
            return CallToolResult::error("search_tools needs a query");
        };
        let limit = args.get("limit").and_then(Value::as_u64).map_or(DEFAULT_LIMIT, |n| n as usize);
        let regex = args.get("regex").and_then(Value::as_bool).unwrap_or(false);
        let found = match self.search(registry, query, limit, regex, seen) {
            Ok(f) => f,
            Err(e) => return CallToolResult::error(e.message().to_owned()),
        };
        let text = if found.is_empty() {
            format!("No tool matches {query:?}.")
        } else {
            found
                .iter()
                .map(|t| format!("{}: {}", t.name, t.description.as_deref().unwrap_or("")))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({ "tools": found }));
        result
    }
}

/// One indexed tool: the descriptor, its searchable text and its term counts.
struct Doc {
    tool: Tool,
    text: String,
    terms: HashMap<String, u32>,
    len: u32,
}

/// The BM25 index of a catalogue (the search tool itself left out).
struct Index {
    tools: Vec<Doc>,
    /// Documents containing each term.
    df: HashMap<String, u32>,
    avg_len: f64,
}

impl Index {
    fn build(tools: Vec<Tool>) -> Index {
        let mut docs = Vec::with_capacity(tools.len());
        let mut df: HashMap<String, u32> = HashMap::new();
        for tool in tools.into_iter().filter(|t| t.name != SEARCH_TOOL) {
            let text = searchable(&tool);
            // The name counts twice: it says most about what a tool does.
            let mut terms: HashMap<String, u32> = HashMap::new();
            let mut len = 0;
            for t in tokens(&tool.name).chain(tokens(&tool.name)).chain(tokens(&text)) {
                *terms.entry(t).or_default() += 1;
                len += 1;
            }
            for t in terms.keys() {
                *df.entry(t.clone()).or_default() += 1;
            }
            docs.push(Doc { tool, text, terms, len });
        }
        let avg_len = docs.iter().map(|d| f64::from(d.len)).sum::<f64>() / docs.len().max(1) as f64;
        Index { tools: docs, df, avg_len }
    }

    /// Document positions by BM25 score for `query`, best first (ties by name); only those
    /// sharing a term with it.
    fn rank(&self, query: &str) -> Vec<usize> {
        let n = self.tools.len() as f64;
        let mut q: Vec<String> = tokens(query).collect();
        q.sort();
        q.dedup();
        let mut scored: Vec<(f64, usize)> = self
            .tools
            .iter()
            .enumerate()
            .filter_map(|(i, d)| {
                let score: f64 = q
                    .iter()
                    .filter_map(|t| {
                        let tf = f64::from(*d.terms.get(t)?);
                        let df = f64::from(self.df[t]);
                        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                        let norm = 1.0 - B + B * f64::from(d.len) / self.avg_len.max(1.0);
                        Some(idf * tf * (K1 + 1.0) / (tf + K1 * norm))
                    })
                    .sum();
                (score > 0.0).then_some((score, i))
            })
            .collect();
        scored.sort_by(|a, b| {
            b.0.total_cmp(&a.0).then_with(|| self.tools[a.1].tool.name.cmp(&self.tools[b.1].tool.name))
        });
        scored.into_iter().map(|(_, i)| i).collect()
    }
}

/// A tool's searchable text: name, title, description, argument names and descriptions.
fn searchable(tool: &Tool) -> String {
    let mut text = vec![tool.name.clone()];
    text.extend(tool.title.clone());
    text.extend(tool.description.clone());
    if let Some(Value::Object(props)) = tool.input_schema.get("properties") {
        for (name, schema) in props {
            text.push(name.clone());
            if let Some(d) = schema.get("description").and_then(Value::as_str) {
                text.push(d.to_owned());
            }
        }
    }
    text.join(" ")
}

/// Lowercase terms: runs of letters and digits, `snake_case`, `kebab-case` and `camelCase`
/// split into words; a plural `s` dropped from words longer than three letters.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words.into_iter().filter(|w| !STOP.contains(&w.as_str())).map(|w| match w.strip_suffix('s') {
        Some(stem) if stem.len() > 3 && !stem.ends_with('s') => stem.to_owned(),
        _ => w,
    })
}

/// Words that say nothing about what a tool does.
const STOP: &[&str] = &[
    "a", "an", "the", "of", "to", "and", "or", "in", "on", "for", "with", "by", "is", "it", "this", "that",
    "from", "as", "at", "be",
];

#[cfg(test)]
mod tests;

//! What one remote server has registered in the local catalogs, and how a fresh listing of the
//! remote is brought into them: entries gone from the remote are removed, new ones added,
//! changed ones replaced. Names collide per [`CollisionPolicy`].

use super::forward::{CompleteTarget, ForwardCompleter, ForwardPrompt, ForwardResource, ForwardTool, Remote};
use super::mount::Mount;
use crate::error::{Error, Result};
use crate::prompts::PromptRegistry;
use crate::protocol::prompts::Prompt;
use crate::protocol::resources::{Resource, ResourceTemplate};
use crate::protocol::skills::{self, Skill, SkillResources};
use crate::protocol::{CacheHint, Tool};
use crate::registry::{CollisionPolicy, Registration, ToolOrigin, ToolRegistry};
use crate::resources::{ResourceRegistry, UriTemplate};
use crate::tasks::{TaskMode, TaskPolicy, TaskStart};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The local catalogs remote servers register into.
#[derive(Debug, Clone)]
pub(crate) struct Catalogs {
    pub(crate) tools: Arc<ToolRegistry>,
    pub(crate) resources: Option<Arc<ResourceRegistry>>,
    pub(crate) prompts: Option<Arc<PromptRegistry>>,
    /// Where the remotes' skills go (Skills extension; their files are read through the
    /// remote).
    pub(crate) skills: Option<Arc<crate::skills::SkillRegistry>>,
}

/// What happened to each entry of one listing of a remote server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registrations {
    /// Tools (by remote name, in listing order).
    pub tools: Vec<Registration>,
    /// Prompts.
    pub prompts: Vec<Registration>,
    /// Fixed resources (by URI; URIs are never renamed: a taken one is refused under
    /// [`CollisionPolicy::Error`] and skipped otherwise).
    pub resources: Vec<Registration>,
    /// Resource templates (by name).
    pub templates: Vec<Registration>,
    /// Skills (by the local URI of their `SKILL.md`; the remote's URI with the mount's URI
    /// prefix, like its resources).
    pub skills: Vec<Registration>,
}

/// The caching hints of one server's last listings (2026-07-28 server/utilities/caching).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Hints {
    pub(crate) tools: CacheHint,
    pub(crate) prompts: CacheHint,
    pub(crate) resources: CacheHint,
    pub(crate) templates: CacheHint,
    pub(crate) skills: CacheHint,
}

/// Every page of a list, and the merged caching hints of the pages (at most 1000 pages).
async fn pages<P, T, F, Fut>(
    fetch: F,
    split: impl Fn(P) -> (Vec<T>, Option<String>, CacheHint),
) -> Result<(Vec<T>, CacheHint)>
where
    F: Fn(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<P>>,
{
    let (mut items, mut hint, mut cursor) = (Vec::new(), None::<CacheHint>, None);
    for _ in 0..1000 {
        let (page, next, h) = split(fetch(cursor).await?);
        items.extend(page);
        hint = Some(hint.map_or(h, |old| old.merge(h)));
        match next {
            Some(c) => cursor = Some(c),
            None => return Ok((items, hint.unwrap_or_default())),
        }
    }
    Err(Error::protocol("a list of the remote had more than 1000 pages"))
}

/// The entries one server registered: remote key → (local name, descriptor as listed); a
/// resource's key is its remote URI, its local name its local URI.
#[derive(Debug, Default)]
pub(crate) struct Registered {
    /// The caching hints of the last listings.
    pub(crate) hints: Hints,
    tools: BTreeMap<String, (String, Tool)>,
    prompts: BTreeMap<String, (String, Prompt)>,
    resources: BTreeMap<String, (String, Resource)>,
    templates: BTreeMap<String, (String, ResourceTemplate)>,
    skills: BTreeMap<String, (String, Skill)>,
}

/// Which part of the catalogue to bring up to date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Tools,
    Prompts,
    Resources,
}

fn same<T: serde::Serialize>(a: &T, b: &T) -> bool {
    serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
}

/// The name an entry gets when `name` is taken: `{server}_{name}`.
fn prefixed(server: &str, name: &str) -> String {
    format!("{server}_{name}")
}

impl Registered {
    /// Lists `part` of the remote and brings the local catalogs in line with it.
    pub(crate) async fn sync(
        &mut self,
        part: Part,
        remote: &Remote,
        catalogs: &Catalogs,
        mount: &Mount,
        out: &mut Registrations,
    ) -> Result<()> {
        let client = remote.client()?;
        let caps = client.negotiated().capabilities;
        let completions = caps.completions.is_some();
        match part {
            Part::Tools if caps.tools.is_some() => {
                let (mut listed, hint) = pages(
                    |c| client.list_tools_page(c),
                    |p| (p.tools, p.next_cursor, CacheHint { ttl_ms: p.ttl_ms, scope: p.cache_scope }),
                )
                .await?;
                listed.retain(|t| mount.tools.admits(&t.name));
                // A 2026-07-28 server offering tasks: its tools may become local tasks (`task.rs`).
                let tasks = client.lineage() == crate::protocol::Lineage::Modern
                    && caps
                        .extensions
                        .as_ref()
                        .is_some_and(|e| e.contains_key(crate::protocol::tasks_ext::EXTENSION_ID));
                let task = match tasks {
                    true => TaskPolicy { mode: TaskMode::Optional, start: TaskStart::Deferred },
                    false => TaskPolicy::default(),
                };
                out.tools = self.sync_tools(listed, remote, &catalogs.tools, mount, task)?;
                self.hints.tools = hint;
            }
            Part::Prompts if caps.prompts.is_some() => {
                let Some(prompts) = &catalogs.prompts else { return Ok(()) };
                let (listed, hint) = pages(
                    |c| client.list_prompts_page(c),
                    |p| (p.prompts, p.next_cursor, CacheHint { ttl_ms: p.ttl_ms, scope: p.cache_scope }),
                )
                .await?;
                out.prompts = self.sync_prompts(listed, remote, prompts, mount, completions)?;
                self.hints.prompts = hint;
            }
            Part::Resources if caps.resources.is_some() => {
                let Some(resources) = &catalogs.resources else { return Ok(()) };
                let (listed, hint) = pages(
                    |c| client.list_resources_page(c),
                    |p| (p.resources, p.next_cursor, CacheHint { ttl_ms: p.ttl_ms, scope: p.cache_scope }),
                )
                .await?;
                out.resources = self.sync_resources(listed, remote, resources, mount)?;
                self.hints.resources = hint;
                let (listed, hint) = pages(
                    |c| client.list_resource_templates_page(c),
                    |p| {
                        let h = CacheHint { ttl_ms: p.ttl_ms, scope: p.cache_scope };
                        (p.resource_templates, p.next_cursor, h)
                    },
                )
                .await?;
                out.templates = self.sync_templates(listed, remote, resources, mount, completions)?;
                self.hints.templates = hint;
                // Skills ride on resources: their files are resources, and a change of them is
                // announced as one (the extension defines no notification of its own).
                let declared = caps.extensions.as_ref().is_some_and(|e| e.contains_key(skills::EXTENSION_ID));
                if let (true, Some(registry)) = (declared, &catalogs.skills) {
                    let (listed, hint) = pages(
                        |c| client.list_skills_page(c),
                        |p| (p.skills, p.next_cursor, CacheHint { ttl_ms: p.ttl_ms, scope: p.cache_scope }),
                    )
                    .await?;
                    out.skills = self.sync_skills(listed, remote, registry, mount)?;
                    self.hints.skills = hint;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn sync_tools(
        &mut self,
        listed: Vec<Tool>,
        remote: &Remote,
        registry: &ToolRegistry,
        mount: &Mount,
        task: TaskPolicy,
    ) -> Result<Vec<Registration>> {
        let remove = |local: &str| {
            registry.unregister(local);
        };
        reconcile(
            &mut self.tools,
            listed,
            |t| &t.name,
            remove,
            |tool| {
                let remote_name = tool.name.clone();
                let handler = Arc::new(ForwardTool { remote: remote.clone(), name: remote_name.clone() });
                let origin = ToolOrigin::Remote { server: remote.server.clone(), remote_name };
                let mut entry = tool.clone();
                entry.name = mount.local_name(&tool.name);
                // MCP Apps: the app a tool names is registered under the mount's URI prefix.
                if let Some(ui) = crate::protocol::apps::tool_ui(tool) {
                    if let Some(uri) = ui.resource_uri.as_deref().filter(|_| !mount.uri_prefix.is_empty()) {
                        crate::protocol::apps::bind_tool(
                            &mut entry,
                            &mount.local_uri(uri),
                            ui.visibility.as_deref(),
                        );
                    }
                }
                registry.register_with_task(entry, handler, origin, mount.policy, task)
            },
        )
    }

    fn sync_prompts(
        &mut self,
        listed: Vec<Prompt>,
        remote: &Remote,
        registry: &PromptRegistry,
        mount: &Mount,
        completions: bool,
    ) -> Result<Vec<Registration>> {
        let remove = |local: &str| {
            registry.remove(local);
        };
        reconcile(
            &mut self.prompts,
            listed,
            |p| &p.name,
            remove,
            |prompt| {
                let requested = prompt.name.clone();
                let wanted = mount.local_name(&requested);
                let taken = |n: &str| registry.get(n).is_some();
                let Some(r) = claim(&wanted, &remote.server, mount.policy, taken)? else {
                    return Ok(Registration::Skipped(wanted));
                };
                let local = r.name().expect("claimed").to_owned();
                let mut entry = prompt.clone();
                entry.name = local.clone();
                let handler = ForwardPrompt { remote: remote.clone(), name: requested.clone() };
                registry.add(entry, handler)?;
                if completions {
                    for arg in prompt.arguments.iter().flatten() {
                        let target = CompleteTarget::Prompt(requested.clone());
                        let completer = Arc::new(ForwardCompleter { remote: remote.clone(), target });
                        registry.complete_argument(&local, &arg.name, completer)?;
                    }
                }
                Ok(r)
            },
        )
    }

    fn sync_resources(
        &mut self,
        listed: Vec<Resource>,
        remote: &Remote,
        registry: &ResourceRegistry,
        mount: &Mount,
    ) -> Result<Vec<Registration>> {
        let remove = |uri: &str| {
            registry.remove(uri);
        };
        reconcile(
            &mut self.resources,
            listed,
            |r| &r.uri,
            remove,
            |resource| {
                let mut entry = resource.clone();
                entry.uri = mount.local_uri(&resource.uri);
                let uri = entry.uri.clone();
                match registry.add(entry, ForwardResource { remote: remote.clone() }) {
                    Ok(()) => Ok(Registration::Registered(uri)),
                    Err(e) if mount.policy == CollisionPolicy::Error => Err(e),
                    Err(_) => Ok(Registration::Skipped(uri)),
                }
            },
        )
    }

    fn sync_skills(
        &mut self,
        listed: Vec<Skill>,
        remote: &Remote,
        registry: &crate::skills::SkillRegistry,
        mount: &Mount,
    ) -> Result<Vec<Registration>> {
        let remove = |uri: &str| {
            registry.remove(uri);
        };
        reconcile(
            &mut self.skills,
            listed,
            |s| &s.uri,
            remove,
            |skill| {
                let mut entry = skill.clone();
                entry.uri = mount.local_uri(&skill.uri);
                if let SkillResources::Files(files) = &mut entry.resources {
                    files.iter_mut().for_each(|f| f.uri = mount.local_uri(&f.uri));
                }
                let uri = entry.uri.clone();
                match registry.add_entry(entry, Arc::new(ForwardResource { remote: remote.clone() })) {
                    Ok(()) => Ok(Registration::Registered(uri)),
                    Err(e) if mount.policy == CollisionPolicy::Error => Err(e),
                    Err(_) => Ok(Registration::Skipped(uri)),
                }
            },
        )
    }

    fn sync_templates(
        &mut self,
        listed: Vec<ResourceTemplate>,
        remote: &Remote,
        registry: &ResourceRegistry,
        mount: &Mount,
        completions: bool,
    ) -> Result<Vec<Registration>> {
        let remove = |local: &str| {
            registry.remove_template(local);
        };
        reconcile(
            &mut self.templates,
            listed,
            |t| &t.name,
            remove,
            |template| {
                let wanted = mount.local_name(&template.name);
                let taken = |n: &str| {
                    registry
                        .templates_page(None, usize::MAX)
                        .is_ok_and(|(all, _)| all.iter().any(|t| t.name == n))
                };
                let Some(r) = claim(&wanted, &remote.server, mount.policy, taken)? else {
                    return Ok(Registration::Skipped(wanted));
                };
                let mut entry = template.clone();
                entry.name = r.name().expect("claimed").to_owned();
                entry.uri_template = mount.local_uri(&template.uri_template);
                let local_template = entry.uri_template.clone();
                registry.add_template(entry, ForwardResource { remote: remote.clone() })?;
                if completions {
                    let parsed = UriTemplate::parse(&template.uri_template).map_err(Error::invalid_input)?;
                    for variable in parsed.variables() {
                        let target = CompleteTarget::Template(template.uri_template.clone());
                        let completer = Arc::new(ForwardCompleter { remote: remote.clone(), target });
                        registry.complete_variable(&local_template, variable, completer)?;
                    }
                }
                Ok(r)
            },
        )
    }

    /// Removes everything this server registered; returns the local names (tools, prompts,
    /// resource URIs, templates).
    pub(crate) fn clear(&mut self, catalogs: &Catalogs) -> Vec<String> {
        let mut removed = Vec::new();
        for (_, (local, _)) in std::mem::take(&mut self.tools) {
            catalogs.tools.unregister(&local);
            removed.push(local);
        }
        if let Some(prompts) = &catalogs.prompts {
            for (_, (local, _)) in std::mem::take(&mut self.prompts) {
                prompts.remove(&local);
                removed.push(local);
            }
        }
        if let Some(skills) = &catalogs.skills {
            for (_, (uri, _)) in std::mem::take(&mut self.skills) {
                skills.remove(&uri);
                removed.push(uri);
            }
        }
        if let Some(resources) = &catalogs.resources {
            for (_, (uri, _)) in std::mem::take(&mut self.resources) {
                resources.remove(&uri);
                removed.push(uri);
            }
            for (_, (local, _)) in std::mem::take(&mut self.templates) {
                resources.remove_template(&local);
                removed.push(local);
            }
        }
        removed
    }
}

/// Brings `known` (remote key → local name and descriptor) in line with a fresh listing:
/// entries gone from it or changed are removed (`remove` takes the local name), known
/// unchanged ones stay, and new ones go through `add`; what `add` registered under a name is
/// remembered. Returns what happened to each listed entry, in listing order.
fn reconcile<T: serde::Serialize>(
    known: &mut BTreeMap<String, (String, T)>,
    listed: Vec<T>,
    key: impl Fn(&T) -> &str,
    remove: impl Fn(&str),
    mut add: impl FnMut(&T) -> Result<Registration>,
) -> Result<Vec<Registration>> {
    let fresh: BTreeMap<&str, &T> = listed.iter().map(|t| (key(t), t)).collect();
    known.retain(|k, (local, old)| {
        let keep = fresh.get(k.as_str()).is_some_and(|t| same(*t, old));
        if !keep {
            remove(local);
        }
        keep
    });
    let mut done = Vec::with_capacity(listed.len());
    for item in listed {
        if let Some((local, _)) = known.get(key(&item)) {
            done.push(Registration::Registered(local.clone()));
            continue;
        }
        let r = add(&item)?;
        if let Some(local) = r.name() {
            known.insert(key(&item).to_owned(), (local.to_owned(), item));
        }
        done.push(r);
    }
    Ok(done)
}

/// The name `requested` gets under `policy`: itself when free, `{server}_{requested}` under
/// [`CollisionPolicy::Prefix`], `None` under [`CollisionPolicy::Skip`].
fn claim(
    requested: &str,
    server: &str,
    policy: CollisionPolicy,
    taken: impl Fn(&str) -> bool,
) -> Result<Option<Registration>> {
    if !taken(requested) {
        return Ok(Some(Registration::Registered(requested.to_owned())));
    }
    match policy {
        CollisionPolicy::Skip => Ok(None),
        CollisionPolicy::Prefix => {
            let name = prefixed(server, requested);
            if taken(&name) {
                return Err(Error::invalid_input(format!(
                    "{requested:?} collides, and its prefixed name {name:?} is taken too"
                )));
            }
            Ok(Some(Registration::Renamed { requested: requested.to_owned(), name }))
        }
        CollisionPolicy::Error => {
            Err(Error::invalid_input(format!("an entry named {requested:?} is already registered")))
        }
    }
}

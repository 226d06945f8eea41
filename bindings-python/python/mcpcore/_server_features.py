"""What a ``Server`` serves besides tools: resources and templates, prompts, apps, skills and
completions, registered with its methods and decorators (a part of :class:`mcpcore.Server`)."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, TypeVar, Union, overload

from . import _features, _native
from ._context import Context, _context
from ._features import CompletionSource
from ._results import apps_meta
from .errors import InvalidInput

if TYPE_CHECKING:  # pragma: no cover
    from ._registry import Registry

F = TypeVar("F", bound=Callable[..., Any])


class _ServerFeatures:
    """The resources, prompts, apps, skills and completions of :class:`mcpcore.Server`."""

    registry: "Registry"
    _resources: _native.Resources
    _prompts: _native.Prompts
    _templates: Dict[str, str]
    _skills: Optional[_native.Skills]
    _async_handlers: bool

    # -- resources ----------------------------------------------------------------------------

    def add_resource(
        self,
        fn: Callable[..., Any],
        uri: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = None,
        complete: Optional[Mapping[str, CompletionSource]] = None,
    ) -> None:
        """Registers ``fn`` (sync or ``async def``) as the reader of ``uri``: a fixed URI, or an
        RFC 6570 template such as ``users://{id}/profile`` whose variables ``fn`` receives as
        keyword arguments (strings; ``int``/``float``/``bool`` when annotated so). A ``Context``
        parameter receives the call. ``name`` defaults to the function's name, ``description``
        to its docstring. ``complete`` maps template variables to completion values or
        functions (see :meth:`add_completion`).

        ``fn`` returns the contents: ``str`` (text), ``bytes`` (a base64 blob), an
        ``EmbeddedResource``, an MCP contents dict (``{"text": ...}`` or ``{"blob": ...}``), a
        list of these, or any other JSON-able value (sent as ``application/json`` text). An
        exception is a ``-32603`` error (an ``McpError`` with a code is sent as that error).
        Raises InvalidInput when the URI (or template name) is taken."""
        spec = _features.handler_spec(fn, "resource", Context, name)
        is_template = "{" in uri
        variables = _features.template_variables(uri) if is_template else []
        missing = [p for p in spec.required if p not in variables]
        if missing:
            where = f"template {uri!r} has no variable" if is_template else f"resource {uri!r} has no variables:"
            raise TypeError(f"resource {spec.name!r}: {where} {', '.join(missing)} (give those parameters defaults)")
        descriptor = _features.resource_descriptor(
            uri, spec, name=name, title=title, description=description, mime_type=mime_type, is_template=is_template
        )

        def invoke(request: Dict[str, Any], call: Optional[_native.ToolCall]) -> Any:
            kwargs = spec.kwargs(request.get("variables") or {})
            if spec.context_param:
                kwargs[spec.context_param] = _context(call, self.registry)
            return fn(**kwargs)

        callback = invoke
        if is_template:
            self._async_handlers = self._async_handlers or spec.is_async
            self._resources.add_template(json.dumps(descriptor), callback, spec.is_async)
            self._templates[uri] = descriptor["name"]
            for variable, source in (complete or {}).items():
                self.add_completion(source, template=uri, argument=variable)
        else:
            if complete:
                raise InvalidInput(f"resource {uri!r} is not a template: it has no variables to complete")
            self._async_handlers = self._async_handlers or spec.is_async
            self._resources.add(json.dumps(descriptor), callback, spec.is_async)

    def resource(
        self,
        uri: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = None,
        complete: Optional[Mapping[str, CompletionSource]] = None,
    ) -> Callable[[F], F]:
        """Decorator form of :meth:`add_resource`; returns the function unchanged::

            @server.resource("users://{id}/profile", mime_type="application/json",
                             complete={"id": ["ann", "bob"]})
            async def profile(id: str) -> dict:
                return {"id": id}
        """

        if callable(uri):
            raise TypeError(
                f"@server.resource needs the resource's URI: write @server.resource(\"scheme://...\") above "
                f"{getattr(uri, '__name__', 'the function')}, not a bare @server.resource"
            )

        def register(fn: F) -> F:
            self.add_resource(
                fn, uri, name=name, title=title, description=description, mime_type=mime_type, complete=complete
            )
            return fn

        return register

    def remove_resource(self, uri: str) -> bool:
        """Removes the resource with ``uri``, or the template whose ``uriTemplate`` is ``uri``;
        False when there was none."""
        if uri in self._templates:
            return self._resources.remove_template(self._templates.pop(uri))
        return self._resources.remove(uri)

    def notify_resource_updated(self, uri: str) -> None:
        """Announces that the resource at ``uri`` changed: subscribed clients get
        ``notifications/resources/updated`` (legacy ``resources/subscribe``, 2026-07-28
        ``subscriptions/listen``)."""
        self._resources.notify_updated(uri)

    def list_resources(self) -> List[Dict[str, Any]]:
        """The registered resources (MCP ``Resource`` dicts, by URI)."""
        return list(json.loads(self._resources.list()))

    def list_resource_templates(self) -> List[Dict[str, Any]]:
        """The registered templates (MCP ``ResourceTemplate`` dicts, by name)."""
        return list(json.loads(self._resources.list_templates()))

    # -- apps (MCP Apps, SEP-1865) -------------------------------------------------------------

    def add_app(
        self,
        uri: str,
        html: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        csp: Optional[Mapping[str, Sequence[str]]] = None,
        permissions: Optional[Sequence[str]] = None,
        domain: Optional[str] = None,
        prefers_border: Optional[bool] = None,
    ) -> None:
        """Serves an app (MCP Apps, ``io.modelcontextprotocol/ui``): the HTML document ``html``
        at the ``ui://`` URI ``uri``, as ``text/html;profile=mcp-app``. ``csp`` lists the origins
        it may reach (``{"connectDomains": [...], "resourceDomains": [...], "frameDomains":
        [...], "baseUriDomains": [...]}``; none by default), ``permissions`` the browser features
        it asks for (``"camera"``, ``"microphone"``, ``"geolocation"``, ``"clipboardWrite"``),
        ``domain`` a dedicated sandbox origin, ``prefers_border`` whether the host draws a border.
        The server then declares the extension. Bind tools to it with :meth:`app` or
        ``tool(..., meta=apps_meta(uri))``."""
        ui: Dict[str, Any] = {}
        if csp:
            ui["csp"] = {k: list(v) for k, v in csp.items()}
        if permissions:
            ui["permissions"] = {p: {} for p in permissions}
        if domain is not None:
            ui["domain"] = domain
        if prefers_border is not None:
            ui["prefersBorder"] = prefers_border
        self._resources.add_app(uri, html, name, title, description, json.dumps(ui) if ui else None)

    def app(
        self,
        uri: str,
        html: str,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        visibility: Optional[Sequence[str]] = None,
        **app_options: Any,
    ) -> Callable[[F], F]:
        """Decorator: serves the app ``html`` at ``uri`` (see :meth:`add_app`, whose options
        ``app_options`` are) and registers the function as a tool bound to it
        (``_meta.ui.resourceUri``; ``visibility``: ``["model", "app"]`` by default, ``["app"]``
        for a tool only the app calls). Hosts without apps call it as any tool, so its result
        should say in text what the app shows::

            @server.app("ui://echo/view.html", VIEW_HTML, prefers_border=True)
            def show_echo(text: str) -> str:
                return text
        """

        def register(fn: F) -> F:
            self.add_app(uri, html, **app_options)
            self.registry.add_tool(fn, name=name, description=description, title=title,
                                   meta=apps_meta(uri, visibility))
            return fn

        return register

    # -- skills (SEP-2640) ---------------------------------------------------------------------

    def _skill_set(self) -> _native.Skills:
        if self._skills is None:
            self._skills = _native.Skills(self._resources)
        return self._skills

    def skills(self, root: Union[str, "os.PathLike[str]"]) -> List[Dict[str, Any]]:
        """Serves every skill under the directory ``root`` (each directory holding a
        ``SKILL.md``; the Skills extension, ``io.modelcontextprotocol/skills``): its files become
        resources ``skill://<skill-path>/<file>``, and ``skills/list``, ``skills/get`` and
        ``resources/directory/read`` are answered. Files are read once, now. Returns the skills'
        entries. Raises :class:`InvalidInput` naming the rule a skill breaks (a frontmatter
        without ``name``/``description`` or naming another directory, more than 512 files or
        16 MiB, a link leaving ``root``); then none of them is served."""
        return list(json.loads(self._skill_set().add_dir(os.fspath(root))))

    def add_skill(self, path: str, files: Mapping[str, Union[str, bytes]]) -> Dict[str, Any]:
        """Serves the skill at ``path`` (``"git-workflow"``, ``"acme/billing/refunds"``; the last
        segment is its name) made of ``files`` (path in the skill -> text or bytes; a ``SKILL.md``
        with YAML frontmatter is required). Returns its entry (frontmatter, and each file's
        ``sha256`` digest and size)."""
        encoded = [(k, v.encode() if isinstance(v, str) else bytes(v)) for k, v in files.items()]
        return dict(json.loads(self._skill_set().add(path, encoded)))

    def skill(self, fn: Optional[Callable[[], Any]] = None, *, path: Optional[str] = None) -> Any:
        """Decorator form of :meth:`add_skill`: the function is called once, now, and returns the
        ``SKILL.md`` text or a mapping of the skill's files; the skill path defaults to the
        function's name with ``_`` as ``-``::

            @server.skill
            def git_workflow() -> str:
                return "---\nname: git-workflow\ndescription: Our Git conventions\n---\n..."
        """

        def register(f: Callable[[], Any]) -> Callable[[], Any]:
            made = f()
            files = {"SKILL.md": made} if isinstance(made, (str, bytes)) else dict(made)
            self.add_skill(path or f.__name__.replace("_", "-"), files)
            return f

        return register(fn) if fn is not None else register

    def remove_skill(self, uri: str) -> bool:
        """Stops serving the skill whose ``SKILL.md`` is at ``uri``; False when there was none."""
        return self._skills is not None and self._skills.remove(uri)

    # -- prompts ------------------------------------------------------------------------------

    def add_prompt(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        complete: Optional[Mapping[str, CompletionSource]] = None,
    ) -> None:
        """Registers ``fn`` (sync or ``async def``) as a prompt. Its parameters are the prompt's
        arguments (strings; required when they have no default; described by the docstring's
        Args section); a ``Context`` parameter receives the call. ``fn`` returns a ``str`` (one
        user message), a ``Message``, an MCP message dict, a list of those, or a full
        ``GetPromptResult`` dict. ``complete`` maps arguments to completion values or functions.
        Raises InvalidInput when the name is taken."""
        spec = _features.handler_spec(fn, "prompt", Context, name)
        descriptor = _features.prompt_descriptor(spec, title=title, description=description)

        def invoke(arguments: Dict[str, Any], call: Optional[_native.ToolCall]) -> Any:
            kwargs = spec.kwargs(arguments)
            if spec.context_param:
                kwargs[spec.context_param] = _context(call, self.registry)
            return fn(**kwargs)

        self._async_handlers = self._async_handlers or spec.is_async
        self._prompts.add(json.dumps(descriptor), invoke, spec.is_async)
        for argument, source in (complete or {}).items():
            self.add_completion(source, prompt=spec.name, argument=argument)

    @overload
    def prompt(self, name: F) -> F: ...

    @overload
    def prompt(
        self,
        name: Optional[str] = None,
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
        complete: Optional[Mapping[str, CompletionSource]] = None,
    ) -> Callable[[F], F]: ...

    def prompt(
        self,
        name: Union[str, F, None] = None,
        *,
        title: Optional[str] = None,
        description: Optional[str] = None,
        complete: Optional[Mapping[str, CompletionSource]] = None,
    ) -> Union[F, Callable[[F], F]]:
        """Decorator form of :meth:`add_prompt`, bare (``@server.prompt``) or called; returns the
        function unchanged::

            @server.prompt(complete={"language": ["python", "rust"]})
            def review(code: str, language: str = "python") -> str:
                \"\"\"Asks for a code review.\"\"\"
                return f"Review this {language} code:\\n{code}"
        """

        if callable(name):
            self.add_prompt(name)
            return name

        def register(fn: F) -> F:
            self.add_prompt(fn, name=name, title=title, description=description, complete=complete)
            return fn

        return register

    def remove_prompt(self, name: str) -> bool:
        """Removes prompt ``name``; False when there was none."""
        return self._prompts.remove(name)

    def list_prompts(self) -> List[Dict[str, Any]]:
        """The registered prompts (MCP ``Prompt`` dicts, by name)."""
        return list(json.loads(self._prompts.list()))

    # -- completion ---------------------------------------------------------------------------

    def add_completion(
        self,
        source: CompletionSource,
        *,
        argument: str,
        prompt: Optional[str] = None,
        template: Optional[str] = None,
    ) -> None:
        """Completes ``argument`` of ``prompt`` (a prompt name), or the variable ``argument`` of
        ``template`` (a registered ``uriTemplate``), for ``completion/complete``. ``source`` is
        a list of values (the engine offers those starting with what was typed, at most 100),
        or a function ``(value)`` or ``(value, context)`` (sync or async; ``context`` holds the
        other arguments the client sent) returning a list of strings or a
        ``{"values", "total", "hasMore"}`` dict. Raises InvalidInput for an unknown prompt,
        template or argument."""
        if (prompt is None) == (template is None):
            raise InvalidInput("add_completion needs exactly one of prompt= or template=")
        values, callback, is_async = _features.completer_parts(source)
        self._async_handlers = self._async_handlers or is_async
        if prompt is not None:
            self._prompts.complete(prompt, argument, values, callback, is_async)
        else:
            assert template is not None
            self._resources.complete(template, argument, values, callback, is_async)

    def completion(
        self, *, argument: str, prompt: Optional[str] = None, template: Optional[str] = None
    ) -> Callable[[F], F]:
        """Decorator form of :meth:`add_completion` for a completion function::

            @server.completion(prompt="review", argument="language")
            def languages(value: str) -> list[str]:
                return [l for l in LANGUAGES if l.startswith(value)]
        """

        def register(fn: F) -> F:
            self.add_completion(fn, argument=argument, prompt=prompt, template=template)
            return fn

        return register

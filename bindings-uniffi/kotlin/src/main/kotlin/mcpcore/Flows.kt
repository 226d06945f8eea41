// Kotlin-only helpers over the generated bindings: the server's lists as cold Flows that fetch
// one page at a time (following `nextCursor`) as they are collected, like the Python and Node
// page iterators. Pages come from the client's result cache while fresh.
package mcpcore

import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow

/** Every tool of the server, fetched page by page as the flow is collected. */
fun Client.tools(): Flow<Tool> = pages("tools/list") { listToolsPage(it).let { p -> p.tools to p.nextCursor } }

/** Every resource of the server, fetched page by page as the flow is collected. */
fun Client.resources(): Flow<Resource> =
    pages("resources/list") { listResourcesPage(it).let { p -> p.resources to p.nextCursor } }

/** Every resource template of the server, fetched page by page as the flow is collected. */
fun Client.resourceTemplates(): Flow<ResourceTemplate> =
    pages("resources/templates/list") { listResourceTemplatesPage(it).let { p -> p.templates to p.nextCursor } }

/** Every prompt of the server, fetched page by page as the flow is collected. */
fun Client.prompts(): Flow<Prompt> = pages("prompts/list") { listPromptsPage(it).let { p -> p.prompts to p.nextCursor } }

/** At most this many pages: a server paging forever is refused, as the Rust client does. */
private const val MAX_PAGES = 1000

private fun <T> pages(method: String, fetch: suspend (String?) -> Pair<List<T>, String?>): Flow<T> = flow {
    var cursor: String? = null
    repeat(MAX_PAGES) {
        val (items, next) = fetch(cursor)
        for (item in items) emit(item)
        cursor = next ?: return@flow
    }
    throw McpException.Protocol(-32603, "$method returned more than $MAX_PAGES pages", null)
}

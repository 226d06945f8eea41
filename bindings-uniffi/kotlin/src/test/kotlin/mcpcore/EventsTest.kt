// MCP Events (SEP-3415) in Kotlin: a Kotlin server declaring event types and emitting into them,
// read by a Kotlin client over real HTTP on 127.0.0.1 in both lineages: listed, polled from a
// cursor, streamed and resumed from the stream's cursor; a webhook subscription delivered to a
// receiver (the JDK's HTTP server) whose signature is checked here with HMAC-SHA256, and to one
// that mounts the binding's WebhookReceiver (verification answered, a retry dropped, a forgery
// refused); and bad input refused with its code.
package mcpcore

import com.sun.net.httpserver.HttpServer
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.InetSocketAddress
import java.util.Base64
import java.util.Collections
import javax.crypto.Mac
import javax.crypto.spec.SecretKeySpec

private const val PAYLOAD = """{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}"""

class EventsTest {
    private inline fun <reified E : Throwable> thrown(block: () -> Unit): E {
        val e = runCatching(block).exceptionOrNull()
        assertTrue(e is E, "expected ${E::class.simpleName}, got $e")
        return e as E
    }

    private fun events(): Events {
        val events = Events()
        events.declare("tick", "Counts", listOf(DeliveryMode.POLL, DeliveryMode.PUSH, DeliveryMode.WEBHOOK), payloadSchemaJson = PAYLOAD)
        events.setHeartbeatMs(100uL)
        events.setWebhookPolicy(allowHttpLoopback = true, allowAnonymous = true)
        return events
    }

    @Test
    fun `a kotlin client polls and streams a kotlin server's events in both lineages`() = runBlocking<Unit> {
        val events = events()
        val server = Server(mcpcore.examples.echoRegistry(), "kotlin-events", "1.0").withEvents(events)
        server.serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    assertTrue(client.eventsSupported())
                    assertTrue(client.listEvents().single().contains("\"name\":\"tick\""))
                    val first = client.pollEvents("tick", "{}")
                    assertEquals(emptyList<EventOccurrence>(), first.events)
                    val emitted = events.emit("tick", """{"n":1}""")
                    assertTrue(emitted.eventId.startsWith("evt_"))
                    val got = client.pollEvents("tick", "{}", cursor = first.cursor)
                    assertEquals(listOf("""{"n":1}"""), got.events.map { it.dataJson })
                    val stream = client.streamEvents("tick", "{}", cursor = got.cursor)
                    assertEquals(StreamItem.Active(got.cursor, false), stream.next())
                    events.emit("tick", """{"n":2}""")
                    var item = stream.next()
                    while (item !is StreamItem.Event) item = stream.next()
                    assertEquals("""{"n":2}""", item.occurrence.dataJson)
                    assertEquals(item.occurrence.cursor, stream.cursor())
                    val resume = stream.cursor()
                    stream.end()
                    events.emit("tick", """{"n":3}""")
                    val again = client.streamEvents("tick", "{}", cursor = resume)
                    assertTrue(again.next() is StreamItem.Active)
                    assertEquals("""{"n":3}""", (again.next() as StreamItem.Event).occurrence.dataJson)
                    again.end()
                    val unknown = thrown<McpException.Rpc> { runBlocking { client.pollEvents("nope", "{}") } }
                    assertEquals(-32011, unknown.code())
                }
            }
        }
        val bad = thrown<McpException.InvalidInput> { events.emit("tick", """{"n":"one"}""") }
        assertTrue(bad.reason.contains("payloadSchema"), bad.reason)
    }

    @Test
    fun `filterOn gives each subscription the occurrences its arguments ask for`() = runBlocking<Unit> {
        val events = Events()
        val args = """{"type":"object","properties":{"service":{"type":"string"}}}"""
        events.declare("deploy", "Deploys", listOf(DeliveryMode.POLL), inputSchemaJson = args, filterOn = listOf("service"))
        val server = Server(mcpcore.examples.echoRegistry(), "kotlin-events", "1.0").withEvents(events)
        server.serveHttp("127.0.0.1", 0u).use { serving ->
            Client.connectHttp(serving.url(), ConnectOptions()).use { client ->
                val start = client.pollEvents("deploy", "{}").cursor
                for ((service, n) in listOf("api" to 1, "web" to 2, "api" to 3)) {
                    events.emit("deploy", """{"service":"$service","n":$n}""")
                }
                val api = client.pollEvents("deploy", """{"service":"api"}""", cursor = start)
                assertEquals(2, api.events.size)
                assertTrue(api.events.all { it.dataJson.contains("\"api\"") }, api.events.toString())
                assertEquals(3, client.pollEvents("deploy", "{}", cursor = start).events.size)
            }
        }
    }

    @Test
    fun `a webhook subscription is verified and delivered signed`() = runBlocking<Unit> {
        val key = ByteArray(32) { 9 }
        val secret = "whsec_" + Base64.getEncoder().encodeToString(key)
        val got = Collections.synchronizedList(mutableListOf<String>())
        val receiver = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0)
        receiver.createContext("/hook") { ex ->
            val body = ex.requestBody.readAllBytes()
            val id = ex.requestHeaders.getFirst("webhook-id")
            val ts = ex.requestHeaders.getFirst("webhook-timestamp")
            val mac = Mac.getInstance("HmacSHA256").apply { init(SecretKeySpec(key, "HmacSHA256")) }
            mac.update("$id.$ts.".toByteArray())
            val expected = "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body))
            val text = String(body)
            if (ex.requestHeaders.getFirst("webhook-signature") == expected) got.add(text)
            val answer = Regex("\"challenge\":\"([0-9a-f]+)\"").find(text)?.let { "{\"challenge\":\"${it.groupValues[1]}\"}" } ?: ""
            ex.sendResponseHeaders(200, answer.length.toLong())
            ex.responseBody.use { it.write(answer.toByteArray()) }
        }
        receiver.start()
        try {
            val events = events()
            val server = Server(mcpcore.examples.echoRegistry(), "kotlin-hooks", "1.0").withEvents(events)
            server.serveHttp("127.0.0.1", 0u).use { serving ->
                Client.connectHttp(serving.url(), ConnectOptions()).use { client ->
                    val url = "http://127.0.0.1:${receiver.address.port}/hook"
                    val grant = client.subscribeWebhook("tick", "{}", url, secret, ttlMs = 60_000uL)
                    assertTrue(grant.id.startsWith("sub_"))
                    assertNotNull(grant.refreshBefore)
                    events.emit("tick", """{"n":7}""")
                    repeat(100) { if (got.size < 2) delay(50) }
                    assertTrue(got[0].contains("\"verification\""), got.toString())
                    assertTrue(got[1].contains("\"n\":7"), got.toString())
                    client.unsubscribeWebhook("tick", "{}", url)
                    val twice = thrown<McpException.Rpc> { runBlocking { client.unsubscribeWebhook("tick", "{}", url) } }
                    assertEquals(-32011, twice.code())
                    val short = thrown<McpException.Rpc> { runBlocking { client.subscribeWebhook("tick", "{}", url, "whsec_AAAA") } }
                    assertEquals(-32602, short.code())
                }
            }
        } finally {
            receiver.stop(0)
        }
    }

    @Test
    fun `a WebhookReceiver in the JDK's HTTP server takes each delivery once and refuses a forgery`() = runBlocking<Unit> {
        val secret = "whsec_" + Base64.getEncoder().encodeToString(ByteArray(32) { 5 })
        val hooks = WebhookReceiver(listOf(secret))
        val taken = Collections.synchronizedList(mutableListOf<ReceivedDelivery>())
        val posts = Collections.synchronizedList(mutableListOf<Pair<Map<String, String>, ByteArray>>())
        val http = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0)
        http.createContext("/hooks") { ex ->
            val body = ex.requestBody.readAllBytes()
            val headers = ex.requestHeaders.entries.associate { (k, v) -> k to v.first() }
            posts.add(headers to body)
            val got = hooks.receive(headers, body)
            taken.add(got)
            val answer = got.body.toByteArray()
            ex.sendResponseHeaders(got.status.toInt(), if (answer.isEmpty()) -1 else answer.size.toLong())
            if (answer.isNotEmpty()) ex.responseBody.use { it.write(answer) } else ex.close()
        }
        http.start()
        try {
            val events = events()
            val server = Server(mcpcore.examples.echoRegistry(), "kotlin-receiver", "1.0").withEvents(events)
            server.serveHttp("127.0.0.1", 0u).use { serving ->
                Client.connectHttp(serving.url(), ConnectOptions()).use { client ->
                    val url = "http://127.0.0.1:${http.address.port}/hooks"
                    val grant = client.subscribeWebhook("tick", "{}", url, secret)
                    events.emit("tick", """{"n":11}""")
                    repeat(100) { if (taken.size < 2) delay(50) }
                    // The receiver answered the challenge itself, so the subscription was granted.
                    assertTrue(taken[0].deliveryJson!!.contains("\"verification\""), taken.toString())
                    val event = taken[1]
                    assertEquals(200, event.status.toInt())
                    assertEquals(grant.id, event.subscriptionId)
                    assertTrue(event.deliveryJson!!.contains("\"type\":\"event\""), event.toString())
                    assertTrue(event.deliveryJson!!.contains("\"n\":11"), event.toString())
                    // The same POST again (a retry): acknowledged, not handed over twice.
                    val (headers, body) = posts[1]
                    val again = hooks.receive(headers, body)
                    assertEquals(200, again.status.toInt())
                    assertEquals("""{"type":"duplicate"}""", again.deliveryJson)
                    // A body changed in transit: refused, and nothing handed over.
                    val forged = hooks.receive(headers, String(body).replace("11", "12").toByteArray())
                    assertEquals(401, forged.status.toInt())
                    assertEquals(null, forged.deliveryJson)
                    // Header names in any case.
                    val upper = headers.mapKeys { it.key.uppercase() }
                    assertEquals("""{"type":"duplicate"}""", hooks.receive(upper, body).deliveryJson)
                    val bad = thrown<McpException.InvalidInput> { WebhookReceiver(listOf("whsec_AAAA")) }
                    assertTrue(bad.reason.contains("whsec_"), bad.reason)
                }
            }
        } finally {
            http.stop(0)
        }
    }
}

// Skills (SEP-2640) in Kotlin: a Kotlin server serving a real directory of skills and one made in
// memory, used by a Kotlin client over real HTTP on 127.0.0.1 in both lineages: listed, got,
// loaded and read with verification, directories read, a tampered entry refused; and the
// registration rules refused with the rule named.
package mcpcore

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.nio.file.Files

private const val PDF = "---\nname: pdf-processing\ndescription: Extract PDFs\n---\n# PDF\nRead references/FORMS.md.\n"
private const val FORMS = "# Forms\nCapitals only.\n"

class SkillsTest {
    private inline fun <reified E : Throwable> thrown(block: () -> Unit): E {
        val e = runCatching(block).exceptionOrNull()
        assertTrue(e is E, "expected ${E::class.simpleName}, got $e")
        return e as E
    }

    @Test
    fun `a kotlin client loads and verifies a kotlin server's skills in both lineages`() = runBlocking<Unit> {
        val root = Files.createTempDirectory("mcpcore-kotlin-skills")
        for ((rel, text) in listOf("pdf-processing/SKILL.md" to PDF, "pdf-processing/references/FORMS.md" to FORMS)) {
            val path = root.resolve(rel)
            Files.createDirectories(path.parent)
            Files.writeString(path, text)
        }
        val resources = Resources()
        val skills = Skills(resources)
        assertEquals(listOf("skill://pdf-processing/SKILL.md"), skills.addDir(root.toString()).map { it.uri })
        val git = skills.add("git-workflow", mapOf("SKILL.md" to "---\nname: git-workflow\ndescription: Git\n---\n".toByteArray()))
        assertEquals("git-workflow", git.name)
        val server = Server(mcpcore.examples.echoRegistry(), "kotlin-skills", "1.0", resources = resources, skills = skills)
        server.serveHttp("127.0.0.1", 0u).use { serving ->
            for (lineage in LINEAGES) {
                Client.connectHttp(serving.url(), ConnectOptions(lineage = lineage)).use { client ->
                    assertEquals(SkillsSupport(directoryRead = true), client.skillsSupport(), "$lineage")
                    val listed = client.listSkills()
                    assertEquals(listOf("skill://git-workflow/SKILL.md", "skill://pdf-processing/SKILL.md"), listed.map { it.uri })
                    val pdf = client.getSkill("skill://pdf-processing/SKILL.md")
                    assertEquals(listed[1], pdf)
                    assertEquals("Extract PDFs", pdf.description)
                    assertEquals(PDF.toByteArray().size.toULong(), pdf.files!!.first { it.uri == pdf.uri }.size)
                    assertEquals(PDF, client.loadSkill(pdf))
                    assertArrayEquals(FORMS.toByteArray(), client.readSkillFile(pdf, "skill://pdf-processing/references/FORMS.md"))
                    val children = client.readDirectory("skill://pdf-processing")
                    assertEquals(listOf("pdf-processing" to "text/markdown", "references" to "inode/directory"), children.map { it.name to it.mimeType })
                    val unknown = thrown<McpException.Rpc> { runBlocking { client.getSkill("skill://nope/SKILL.md") } }
                    assertEquals(-32602, unknown.code())
                    val tampered = pdf.copy(json = pdf.json.replace(Regex("sha256:[0-9a-f]{64}"), "sha256:" + "0".repeat(64)))
                    val refused = thrown<McpException.Protocol> { runBlocking { client.loadSkill(tampered) } }
                    assertTrue(refused.reason.contains("failed verification"), refused.reason)
                }
            }
        }
        root.toFile().deleteRecursively()
    }

    @Test
    fun `a skill breaking a rule is refused with the rule`() {
        val skills = Skills(Resources())
        val e = thrown<McpException.InvalidInput> { skills.add("pdf", mapOf("SKILL.md" to PDF.toByteArray())) }
        assertTrue(e.reason.contains("must match"), e.reason)
        val entry = skills.add("acme/billing/refunds", mapOf("SKILL.md" to "---\nname: refunds\ndescription: Refunds\n---\n".toByteArray()))
        assertEquals("skill://acme/billing/refunds/SKILL.md", entry.uri)
        assertTrue(skills.remove(entry.uri))
    }
}

package dev.idempotent.adoption;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/adopting.md shows the code {@link AdoptionIT} runs: each code block marked {@code <!-- snippet: FILE -->} is in
 * that file, line for line (indentation aside); every Java, SQL and YAML block is marked, or marked
 * {@code <!-- illustration -->} (code shown, not the test service's: what a service has before it adopts the starter,
 * a property tested elsewhere, the removal); and the service's table
 * migration is the shipped DDL, unchanged.
 */
class AdoptingDocTest {

	private static final Path ROOT = Path.of("..");

	private static final Pattern MARKER = Pattern.compile("<!-- (snippet: (\\S+)|illustration) -->");

	@Test
	void everySnippetIsTheTestServicesCode() throws IOException {
		List<Snippet> snippets = snippets(Files.readAllLines(ROOT.resolve("docs/adopting.md")));

		assertThat(snippets).as("the page's checked code blocks").hasSizeGreaterThanOrEqualTo(6);
		for (Snippet snippet : snippets) {
			assertThat(snippet.file()).as("a code block without a marker: %s", snippet.lines()).isNotNull();
			if (snippet.file().isEmpty()) {
				continue;
			}
			List<String> code = normalized(Files.readAllLines(ROOT.resolve(snippet.file())));
			assertThat(Collections.indexOfSubList(code, normalized(snippet.lines())))
				.as("docs/adopting.md's block for %s is in that file:%n%s", snippet.file(), String.join("\n", snippet.lines()))
				.isNotNegative();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "mariadb", "postgresql" })
	void theServicesTableMigrationIsTheShippedDdl(String database) throws IOException {
		String shipped = Files.readString(ROOT.resolve("sql/schema-" + database + ".sql"))
				+ Files.readString(ROOT.resolve("sql/schema-" + database + "-output.sql"));
		assertThat(Files.readString(ROOT.resolve("idempotent-spring-boot-starter/src/test/resources/adoption/db/"
				+ database + "/V2__idempotent_tables.sql"))).isEqualTo(shipped);
	}

	/** The Java, SQL and YAML blocks, each with the file its marker names ("" for an illustration, null unmarked). */
	private static List<Snippet> snippets(List<String> page) {
		List<Snippet> snippets = new ArrayList<>();
		String marker = null;
		for (int i = 0; i < page.size(); i++) {
			String line = page.get(i);
			Matcher matcher = MARKER.matcher(line.trim());
			if (matcher.matches()) {
				marker = (matcher.group(2) != null) ? matcher.group(2) : "";
				continue;
			}
			if (line.startsWith("```")) {
				String language = line.substring(3).trim();
				List<String> block = new ArrayList<>();
				for (i++; !page.get(i).startsWith("```"); i++) {
					block.add(page.get(i));
				}
				if (List.of("java", "sql", "yaml").contains(language)) {
					snippets.add(new Snippet(marker, block));
				}
			}
			if (!line.isBlank()) {
				marker = null;
			}
		}
		return snippets;
	}

	private static List<String> normalized(List<String> lines) {
		return lines.stream().map(String::strip).filter((line) -> !line.isEmpty()).toList();
	}

	private record Snippet(String file, List<String> lines) {
	}

}

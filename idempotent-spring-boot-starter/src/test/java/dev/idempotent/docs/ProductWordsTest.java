package dev.idempotent.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The repository speaks of the product: no docs, code, tests or SQL refer to how it was developed (issue numbers,
 * numbered stops, work sessions).
 */
class ProductWordsTest {

	private static final Path ROOT = Path.of("..");

	private static final Pattern PROCESS_WORDS = Pattern.compile("(?i)\\bissue\\s*#?\\d+|\\bstop\\s+\\d+"
			+ "|\\b(last|previous|next|earlier|later) session\\b|\\bend of (the )?session\\b|\\bsession\\s+\\d+");

	@Test
	void noDevelopmentProcessWords() throws IOException {
		List<String> found = new ArrayList<>();
		try (Stream<Path> files = Files.walk(ROOT)) {
			for (Path file : files.filter(ProductWordsTest::isChecked).toList()) {
				List<String> lines = Files.readAllLines(file);
				for (int i = 0; i < lines.size(); i++) {
					Matcher matcher = PROCESS_WORDS.matcher(lines.get(i));
					if (matcher.find()) {
						found.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + matcher.group());
					}
				}
			}
		}
		assertThat(found).isEmpty();
	}

	private static boolean isChecked(Path file) {
		String path = ROOT.relativize(file).toString().replace('\\', '/');
		if (path.startsWith(".") || path.contains("/target/") || path.contains("node_modules")
				|| path.endsWith("ProductWordsTest.java")) {
			return false;
		}
		return Files.isRegularFile(file) && (path.endsWith(".md") || path.endsWith(".java") || path.endsWith(".sql")
				|| path.endsWith(".yml") || path.endsWith(".xml") || path.endsWith(".properties"));
	}

}

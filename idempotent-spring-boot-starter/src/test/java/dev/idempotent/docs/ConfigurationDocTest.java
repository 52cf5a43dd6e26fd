package dev.idempotent.docs;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import org.springframework.boot.json.JsonParserFactory;
import org.springframework.util.StreamUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md agrees with the configuration metadata the starter ships: every setting with a default is in
 * its YAML block with that default, every setting without one is named on the page, and the block holds nothing else.
 */
class ConfigurationDocTest {

	private static final Path PAGE = Path.of("..", "docs", "configuration.md");

	@Test
	void thePageListsEverySettingWithItsDefault() throws IOException {
		String page = Files.readString(PAGE);
		Map<String, String> documented = flatten("", new Yaml().load(yamlBlock(page)));
		Map<String, String> defaults = new LinkedHashMap<>();
		for (Map<String, Object> property : metadata()) {
			String name = (String) property.get("name");
			if (!name.startsWith("idempotent.") || property.containsKey("deprecation")
					|| Boolean.TRUE.equals(property.get("deprecated"))) {
				continue;
			}
			if (property.containsKey("defaultValue")) {
				defaults.put(name, String.valueOf(property.get("defaultValue")));
			}
			else {
				assertThat(page).as("a setting without a default is named on the page").contains("`" + name + "`");
			}
		}

		assertThat(documented).as("the YAML block, setting by setting").isEqualTo(defaults);
	}

	private static String yamlBlock(String page) {
		int start = page.indexOf("```yaml\n") + "```yaml\n".length();
		return page.substring(start, page.indexOf("```", start));
	}

	@SuppressWarnings("unchecked")
	private static Map<String, String> flatten(String prefix, Map<String, Object> yaml) {
		Map<String, String> flat = new LinkedHashMap<>();
		yaml.forEach((key, value) -> {
			if (value instanceof Map<?, ?> nested) {
				flat.putAll(flatten(prefix + key + ".", (Map<String, Object>) nested));
			}
			else {
				flat.put(prefix + key, String.valueOf(value));
			}
		});
		return flat;
	}

	/** The settings of the starter's metadata, among every jar's metadata on the class path. */
	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> metadata() throws IOException {
		List<URL> files = Collections.list(ConfigurationDocTest.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"));
		for (URL file : files) {
			try (InputStream in = file.openStream()) {
				String json = StreamUtils.copyToString(in, StandardCharsets.UTF_8);
				if (json.contains("\"idempotent.table-name\"")) {
					return (List<Map<String, Object>>) JsonParserFactory.getJsonParser().parseMap(json).get("properties");
				}
			}
		}
		throw new IllegalStateException("No configuration metadata with idempotent.* settings among " + files);
	}

}

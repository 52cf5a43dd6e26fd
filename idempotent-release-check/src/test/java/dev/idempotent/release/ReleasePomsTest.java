package dev.idempotent.release;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The POMs the published modules install and deploy (the flattened {@code .flattened-pom.xml} of each module), as a
 * user's build and Maven Central see them: standalone (no parent, nothing left to interpolate), with the metadata
 * Central requires, no test-scoped dependency, the optional dependencies still optional. Under {@code -Prelease}
 * also the sources and javadoc jars next to each published jar.
 */
class ReleasePomsTest {

	/** The modules published to Maven Central, the parent included. */
	static final List<String> PUBLISHED = List.of(".", "idempotent-core", "idempotent-kafka",
			"idempotent-spring-boot-autoconfigure", "idempotent-spring-boot-starter", "idempotent-spring-boot3-starter",
			"idempotent-conformance");

	/** Modules built but never published. */
	static final List<String> NOT_PUBLISHED = List.of("sample-ledger-app", "idempotent-benchmarks",
			"idempotent-release-check");

	static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	@ParameterizedTest
	@ValueSource(strings = { ".", "idempotent-core", "idempotent-kafka", "idempotent-spring-boot-autoconfigure",
			"idempotent-spring-boot-starter", "idempotent-spring-boot3-starter", "idempotent-conformance" })
	void aPublishedPomIsStandaloneAndCarriesTheMetadataCentralRequires(String module) throws Exception {
		Path file = flattened(module);
		String text = Files.readString(file);
		Element project = parse(file).getDocumentElement();

		assertThat(text).as(file + " has nothing left to interpolate").doesNotContain("${");
		assertThat(children(project, "parent")).as("no parent: the POM stands alone").isEmpty();
		assertThat(children(project, "build")).as("no build section").isEmpty();
		for (String required : List.of("groupId", "artifactId", "version", "name", "description", "url")) {
			assertThat(text(project, required)).as(module + ": " + required).isNotBlank();
		}
		Element license = only(only(project, "licenses"), "license");
		assertThat(text(license, "name")).isEqualTo("Apache-2.0");
		assertThat(text(license, "url")).startsWith("https://www.apache.org/licenses/LICENSE-2.0");
		assertThat(text(only(only(project, "developers"), "developer"), "name")).isNotBlank();
		Element scm = only(project, "scm");
		for (String required : List.of("connection", "developerConnection", "url")) {
			assertThat(text(scm, required)).as(module + ": scm " + required).isNotBlank();
		}
		if (!text(project, "version").endsWith("-SNAPSHOT")) {
			assertThat(text).as("a release names its real repository (docs/releasing.md)")
				.doesNotContain("REPLACE-WITH-OWNER");
		}
		assertThat(ROOT.resolve("LICENSE")).content().contains("Apache License", "Version 2.0, January 2004");
	}

	@ParameterizedTest
	@ValueSource(strings = { "idempotent-core", "idempotent-kafka", "idempotent-spring-boot-autoconfigure",
			"idempotent-spring-boot-starter", "idempotent-spring-boot3-starter" })
	void noTestDependencyLeaksIntoAPublishedPomAndEveryVersionIsResolved(String module) throws Exception {
		List<Element> dependencies = dependencies(parse(flattened(module)));

		assertThat(dependencies).isNotEmpty();
		assertThat(dependencies).allSatisfy((dependency) -> {
			String name = text(dependency, "artifactId");
			assertThat(text(dependency, "scope")).as(name).isIn("", "compile", "runtime");
			assertThat(text(dependency, "type")).as(name).isIn("", "jar");
			assertThat(text(dependency, "classifier")).as(name).isEmpty();
			assertThat(text(dependency, "version")).as(name).isNotBlank();
		});
		assertThat(dependencies).extracting((dependency) -> text(dependency, "artifactId"))
			.doesNotContain("junit-jupiter", "assertj-core", "h2", "testcontainers-junit-jupiter", "awaitility");
	}

	@Test
	void theStartersOptionalDependenciesStayOptionalAndItsRequiredOnesDoNot() throws Exception {
		List<Element> dependencies = dependencies(parse(flattened("idempotent-spring-boot-starter")));

		assertThat(optional(dependencies, true)).containsExactlyInAnyOrderElementsOf(
				declaredOptional("idempotent-spring-boot-starter"));
		assertThat(optional(dependencies, true)).contains("spring-boot-micrometer-metrics", "spring-boot-health",
				"spring-boot-actuator-autoconfigure");
		assertThat(optional(dependencies, false)).contains("idempotent-spring-boot-autoconfigure",
				"spring-boot-starter-kafka", "spring-boot-starter-jdbc");
		assertThat(optional(dependencies(parse(flattened("idempotent-spring-boot3-starter"))), false)).contains(
				"idempotent-spring-boot-autoconfigure", "spring-kafka", "spring-boot-starter-jdbc");
		for (String module : List.of("idempotent-core", "idempotent-kafka", "idempotent-spring-boot-autoconfigure",
				"idempotent-spring-boot3-starter")) {
			assertThat(optional(dependencies(parse(flattened(module))), true)).as(module)
				.containsExactlyInAnyOrderElementsOf(declaredOptional(module));
		}
		assertThat(optional(dependencies(parse(flattened("idempotent-kafka"))), false)).contains("idempotent-core",
				"spring-kafka");
	}

	@Test
	void theConformanceKitIsOneJarWithNoDependencies() throws Exception {
		assertThat(dependencies(parse(flattened("idempotent-conformance")))).isEmpty();
	}

	@Test
	void modulesThatAreNotPublishedSaySo() throws Exception {
		for (String module : NOT_PUBLISHED) {
			Element properties = only(parse(ROOT.resolve(module).resolve("pom.xml")).getDocumentElement(), "properties");
			assertThat(text(properties, "idempotent.publish.skip")).as(module).isEqualTo("true");
			assertThat(text(properties, "maven.deploy.skip")).as(module).isEqualTo("true");
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "idempotent-core", "idempotent-kafka", "idempotent-spring-boot-autoconfigure",
			"idempotent-spring-boot-starter", "idempotent-spring-boot3-starter", "idempotent-conformance" })
	@EnabledIfSystemProperty(named = "idempotent.release", matches = "true")
	void underTheReleaseProfileEachPublishedJarHasItsSourcesAndJavadocJars(String module) throws Exception {
		Element project = parse(flattened(module)).getDocumentElement();
		String base = text(project, "artifactId") + "-" + text(project, "version");
		Path target = ROOT.resolve(module).resolve("target");

		assertThat(entries(target.resolve(base + ".jar"))).anyMatch((entry) -> entry.endsWith(".class"));
		assertThat(entries(target.resolve(base + "-sources.jar"))).anyMatch((entry) -> entry.endsWith(".java"));
		assertThat(entries(target.resolve(base + "-javadoc.jar"))).contains("index.html");
	}

	private static Path flattened(String module) {
		Path file = ROOT.resolve(module).resolve(".flattened-pom.xml");
		assertThat(file).as("the flatten plugin wrote %s (run the build through the package phase)", file).exists();
		return file;
	}

	private static Set<String> declaredOptional(String module) throws Exception {
		List<Element> declared = dependencies(parse(ROOT.resolve(module).resolve("pom.xml")));
		return Set.copyOf(optional(declared, true));
	}

	private static List<String> optional(List<Element> dependencies, boolean optional) {
		return dependencies.stream()
			.filter((dependency) -> text(dependency, "optional").equals("true") == optional)
			.filter((dependency) -> !text(dependency, "scope").equals("test"))
			.map((dependency) -> text(dependency, "artifactId"))
			.toList();
	}

	private static List<Element> dependencies(Document pom) {
		List<Element> dependencies = children(pom.getDocumentElement(), "dependencies");
		return dependencies.isEmpty() ? List.of() : children(dependencies.get(0), "dependency");
	}

	private static List<String> entries(Path jar) throws IOException {
		assertThat(jar).exists();
		try (JarFile file = new JarFile(jar.toFile())) {
			return file.stream().map(java.util.zip.ZipEntry::getName).toList();
		}
	}

	private static Document parse(Path file) throws Exception {
		DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
		factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
		return factory.newDocumentBuilder().parse(file.toFile());
	}

	private static List<Element> children(Element parent, String name) {
		List<Element> children = new ArrayList<>();
		for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element element && element.getTagName().equals(name)) {
				children.add(element);
			}
		}
		return children;
	}

	private static Element only(Element parent, String name) {
		List<Element> children = children(parent, name);
		assertThat(children).as(parent.getTagName() + "/" + name).hasSize(1);
		return children.get(0);
	}

	private static String text(Element parent, String name) {
		List<Element> children = children(parent, name);
		return children.isEmpty() ? "" : children.get(0).getTextContent().strip();
	}

}

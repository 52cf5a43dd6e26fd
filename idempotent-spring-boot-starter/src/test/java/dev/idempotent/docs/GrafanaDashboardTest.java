package dev.idempotent.docs;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.type.classreading.CachingMetadataReaderFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every series the Grafana dashboard queries is one that this library's code registers: the Prometheus names in
 * the dashboard's expressions, taken back to Micrometer names, are meter-name constants of the code.
 */
class GrafanaDashboardTest {

	private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "idempotency-dashboard.json");

	private static final Pattern SERIES = Pattern.compile("\\bidempotent_[a-z_]+");

	/** What Micrometer's Prometheus registry appends: counters, timers (in seconds), gauges none. */
	private static final List<String> SUFFIXES = List.of("_seconds_bucket", "_seconds_count", "_seconds_sum",
			"_seconds_max", "_total");

	@Test
	void everySeriesTheDashboardQueriesIsAMeterOfTheCode() throws Exception {
		Set<String> meters = meterNamesInCode();
		Set<String> queried = seriesInDashboard();

		assertThat(queried).as("series queried by the dashboard").isNotEmpty();
		assertThat(meters).as("meter names in the code").contains("idempotent.claims");
		List<String> unknown = queried.stream().filter((series) -> !meters.contains(micrometerName(series))).toList();
		assertThat(unknown).as("series of the dashboard that no meter of the code produces (meters: %s)", meters)
			.isEmpty();
	}

	@Test
	void theDashboardIsValidJsonWithOnePanelPerSignal() throws IOException {
		Map<String, Object> dashboard = JsonParserFactory.getJsonParser()
			.parseMap(Files.readString(DASHBOARD, StandardCharsets.UTF_8));
		assertThat(dashboard).containsKeys("title", "panels", "__inputs");
		assertThat((List<?>) dashboard.get("panels")).hasSizeGreaterThanOrEqualTo(6);
	}

	@Test
	void theNameMappingIsTheOneThePrometheusRegistryApplies() {
		PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		Counter.builder("idempotent.sample.counter").register(registry).increment();
		Timer.builder("idempotent.sample.timer").register(registry).record(java.time.Duration.ofMillis(1));
		Gauge.builder("idempotent.sample.gauge", () -> 1).register(registry);
		Set<String> scraped = new TreeSet<>();
		Matcher matcher = SERIES.matcher(registry.scrape());
		while (matcher.find()) {
			scraped.add(matcher.group());
		}
		assertThat(scraped).contains("idempotent_sample_counter_total", "idempotent_sample_timer_seconds_count",
				"idempotent_sample_timer_seconds_sum", "idempotent_sample_timer_seconds_max", "idempotent_sample_gauge");
		assertThat(scraped).allSatisfy((series) -> assertThat(micrometerName(series)).startsWith("idempotent.sample."));
	}

	private static Set<String> seriesInDashboard() throws IOException {
		Set<String> series = new TreeSet<>();
		Matcher matcher = SERIES.matcher(Files.readString(DASHBOARD, StandardCharsets.UTF_8));
		while (matcher.find()) {
			series.add(matcher.group());
		}
		return series;
	}

	private static String micrometerName(String series) {
		String base = series;
		for (String suffix : SUFFIXES) {
			if (base.endsWith(suffix)) {
				base = base.substring(0, base.length() - suffix.length());
				break;
			}
		}
		return base.replace('_', '.');
	}

	/** The values of every {@code public static final String} constant of dev.idempotent that names a meter. */
	private static Set<String> meterNamesInCode() throws Exception {
		Set<String> names = new TreeSet<>();
		CachingMetadataReaderFactory readers = new CachingMetadataReaderFactory();
		List<Class<?>> classes = new ArrayList<>();
		for (Resource resource : new PathMatchingResourcePatternResolver()
			.getResources("classpath*:dev/idempotent/**/*.class")) {
			String className = readers.getMetadataReader(resource).getClassMetadata().getClassName();
			if (!className.contains("Test") && !className.contains(".it.") && !className.contains(".docs.")) {
				try {
					classes.add(Class.forName(className, false, GrafanaDashboardTest.class.getClassLoader()));
				}
				catch (LinkageError ex) {
					// a class needing an optional dependency absent here: it registers no meter here either
				}
			}
		}
		for (Class<?> type : classes) {
			for (Field field : type.getDeclaredFields()) {
				int modifiers = field.getModifiers();
				if (Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers) && field.getType() == String.class) {
					field.setAccessible(true);
					Object value = field.get(null);
					if (value instanceof String name && name.matches("idempotent(\\.[a-z]+)+")) {
						names.add(name);
					}
				}
			}
		}
		return names;
	}

}

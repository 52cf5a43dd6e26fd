package dev.idempotent.audit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import dev.idempotent.key.KeyMasker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link Audits} over JDBC. Each run is two read-only queries on the audit's table:
 * <pre>
 * SELECT COUNT(*) FROM (SELECT key FROM table [WHERE filter] GROUP BY key HAVING COUNT(*) &gt; 1) duplicated
 * SELECT key FROM table [WHERE filter] GROUP BY key HAVING COUNT(*) &gt; 1 ORDER BY key   -- at most 5 rows fetched
 * </pre>
 * the second only when the first found duplicates. Both have a query timeout, and the sample is capped by
 * {@code setMaxRows}, so a run's work is bounded (an index on the key column keeps the GROUP BY cheap).
 * <p>A run that finds duplicates logs one WARN on {@value #LOGGER_NAME} with the count and the masked sample keys;
 * a clean run logs nothing above DEBUG. Thread-safe: the latest results are kept in a concurrent map.
 *
 * @since 0.1.0
 */
public class JdbcAudits implements Audits {

	/** The logger of audit results. */
	public static final String LOGGER_NAME = "dev.idempotent.audit";

	/** The most sample keys a result carries. */
	public static final int SAMPLE_SIZE = 5;

	private static final Logger logger = LoggerFactory.getLogger(LOGGER_NAME);

	private final Map<String, AuditDefinition> definitions;

	/** Per audit: the monitor its runs hold (they never overlap) and their sequence numbers. */
	private final Map<String, Runs> runs;

	private final JdbcTemplate jdbc;

	private final JdbcTemplate sampleJdbc;

	private final Clock clock;

	private final KeyMasker masker;

	private final Map<String, AuditResult> results = new ConcurrentHashMap<>();

	/**
	 * Create the audits.
	 * @param dataSource the database holding the audited tables, never {@code null}
	 * @param definitions the audits; their names must be distinct
	 * @param queryTimeout the timeout of each query, positive (rounded up to whole seconds)
	 * @param masker renders sample keys in the WARN line, never {@code null}
	 * @param clock the clock of {@link AuditResult#ranAt()}, never {@code null}
	 * @throws IllegalArgumentException if two definitions have the same name
	 */
	public JdbcAudits(DataSource dataSource, Collection<AuditDefinition> definitions, Duration queryTimeout,
			KeyMasker masker, Clock clock) {
		Map<String, AuditDefinition> byName = new LinkedHashMap<>();
		for (AuditDefinition definition : definitions) {
			if (byName.put(definition.name(), definition) != null) {
				throw new IllegalArgumentException("Two audits are named '" + definition.name() + "'");
			}
		}
		this.definitions = Map.copyOf(byName);
		Map<String, Runs> runs = new LinkedHashMap<>();
		byName.keySet().forEach((name) -> runs.put(name, new Runs()));
		this.runs = Map.copyOf(runs);
		this.jdbc = new JdbcTemplate(dataSource);
		this.jdbc.setQueryTimeout(seconds(queryTimeout));
		this.sampleJdbc = new JdbcTemplate(dataSource);
		this.sampleJdbc.setQueryTimeout(seconds(queryTimeout));
		this.sampleJdbc.setMaxRows(SAMPLE_SIZE);
		this.sampleJdbc.setFetchSize(SAMPLE_SIZE);
		this.clock = clock;
		this.masker = masker;
	}

	@Override
	public Set<String> names() {
		return this.definitions.keySet();
	}

	/**
	 * Return the definition of an audit.
	 * @param name the audit's name, never {@code null}
	 * @return the definition
	 * @throws IllegalArgumentException if no audit has that name
	 */
	public AuditDefinition definition(String name) {
		AuditDefinition definition = this.definitions.get(name);
		if (definition == null) {
			throw new IllegalArgumentException("No audit named '" + name + "'; declared: " + names());
		}
		return definition;
	}

	/**
	 * {@inheritDoc}
	 * <p>Runs of one audit never overlap (a scheduled run and on-demand requests, or several requests): a caller
	 * that had to wait for a run which started after its own call gets that run's result instead of querying again.
	 */
	@Override
	public AuditResult run(String name) {
		AuditDefinition definition = definition(name);
		Runs runs = this.runs.get(name);
		long calledAfter = runs.started.get();
		synchronized (runs) {
			AuditResult latest = this.results.get(name);
			if (latest != null && runs.finishedRun > calledAfter) {
				return latest;
			}
			long run = runs.started.incrementAndGet();
			AuditResult result = query(definition);
			runs.finishedRun = run;
			return result;
		}
	}

	private AuditResult query(AuditDefinition definition) {
		String name = definition.name();
		Instant ranAt = this.clock.instant();
		long start = System.nanoTime();
		String duplicated = duplicatedKeysQuery(definition);
		long count = Objects.requireNonNull(
				this.jdbc.queryForObject("SELECT COUNT(*) FROM (" + duplicated + ") duplicated", Long.class));
		List<String> sample = (count > 0) ? sample(definition, duplicated) : List.of();
		AuditResult result = new AuditResult(name, count, sample, ranAt, Duration.ofNanos(System.nanoTime() - start));
		this.results.put(name, result);
		report(definition, result);
		return result;
	}

	@Override
	public Optional<AuditResult> lastResult(String name) {
		definition(name);
		return Optional.ofNullable(this.results.get(name));
	}

	private List<String> sample(AuditDefinition definition, String duplicated) {
		return this.sampleJdbc.queryForList(duplicated + " ORDER BY " + definition.keyColumn(), String.class);
	}

	/** A query timeout in whole seconds, rounded up, at least 1 (JDBC's unit). */
	static int seconds(Duration timeout) {
		return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (timeout.toMillis() + 999) / 1000));
	}

	private static String duplicatedKeysQuery(AuditDefinition definition) {
		String where = (definition.filter() != null) ? " WHERE (" + definition.filter() + ")" : "";
		return "SELECT " + definition.keyColumn() + " FROM " + definition.table() + where + " GROUP BY "
				+ definition.keyColumn() + " HAVING COUNT(*) > 1";
	}

	private void report(AuditDefinition definition, AuditResult result) {
		if (result.duplicatedKeys() > 0) {
			logger.warn("Audit '{}' found {} business key(s) written more than once in {}.{}; sample: {}. "
					+ "See the runbook section 'Audit found duplicates'", result.name(), result.duplicatedKeys(),
					definition.table(), definition.keyColumn(),
					result.sampleKeys().stream().map(this.masker::mask).toList());
		}
		else {
			logger.debug("Audit '{}' found no duplicates in {} ms", result.name(), result.took().toMillis());
		}
	}

	/** The runs of one audit: its monitor, how many started, and which one finished last. */
	private static final class Runs {

		final AtomicLong started = new AtomicLong();

		long finishedRun;

	}

}

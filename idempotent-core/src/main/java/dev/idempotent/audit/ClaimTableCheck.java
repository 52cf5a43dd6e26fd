package dev.idempotent.audit;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import dev.idempotent.jdbc.ColumnTime;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.key.KeyMasker;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The built-in checks of the idempotency table: how many rows are FAILED, and how many are PROCESSING with an
 * expired lease ("stuck": in LEASED mode, a consumer died or outlived its lease and the record has not come back
 * to be taken over). Each run is two counts (and, when rows are stuck, a read of at most
 * {@value JdbcAudits#SAMPLE_SIZE} of their keys); times compare with the library's UTC clock, bound as the store
 * binds them.
 * <p>Logging on {@value JdbcAudits#LOGGER_NAME}, so that the signal stays useful rather than noisy:
 * <ul>
 * <li>stuck rows: a WARN when their number rises (including the first run that finds any), with masked sample
 * keys and what to do; an INFO when it falls back to 0;</li>
 * <li>FAILED rows are normal after dead-lettering: a WARN only when their number rises since the previous run,
 * naming the increase.</li>
 * </ul>
 * Thread-safe; runs are expected to be sequential (one scheduler), concurrent runs only make the logs less exact.
 *
 * @since 0.1.0
 */
public class ClaimTableCheck {

	private static final Logger logger = LoggerFactory.getLogger(JdbcAudits.LOGGER_NAME);

	private final JdbcTemplate jdbc;

	private final JdbcTemplate sampleJdbc;

	private final TableName table;

	private final SqlDialect dialect;

	private final KeyMasker masker;

	private final Clock clock;

	private final AtomicReference<@Nullable ClaimTableCounts> last = new AtomicReference<>();

	/**
	 * Create a check.
	 * @param dataSource the business database, never {@code null}
	 * @param table the idempotency table, never {@code null}
	 * @param dialect the database's dialect, never {@code null}
	 * @param queryTimeout the timeout of each query, positive (rounded up to whole seconds)
	 * @param masker renders sample keys, never {@code null}
	 * @param clock the clock leases are compared with (the stores' clock), never {@code null}
	 */
	public ClaimTableCheck(DataSource dataSource, TableName table, SqlDialect dialect, Duration queryTimeout,
			KeyMasker masker, Clock clock) {
		this.jdbc = new JdbcTemplate(dataSource);
		this.jdbc.setQueryTimeout(JdbcAudits.seconds(queryTimeout));
		this.sampleJdbc = new JdbcTemplate(dataSource);
		this.sampleJdbc.setQueryTimeout(JdbcAudits.seconds(queryTimeout));
		this.sampleJdbc.setMaxRows(JdbcAudits.SAMPLE_SIZE);
		this.table = table;
		this.dialect = dialect;
		this.masker = masker;
		this.clock = clock;
	}

	/**
	 * Count FAILED and stuck rows now, log as described above and keep the result.
	 * @return the counts, never {@code null}
	 * @throws org.springframework.dao.DataAccessException if a query fails
	 */
	public ClaimTableCounts run() {
		Instant now = this.clock.instant();
		LocalDateTime utc = ColumnTime.of(now);
		long failed = count("SELECT COUNT(*) FROM " + this.table + " WHERE status = 2");
		String stuckRows = " FROM " + this.table + " WHERE status = 0 AND lease_until < ?";
		long stuck = count("SELECT COUNT(*)" + stuckRows, utc);
		List<String> sample = (stuck > 0) ? stuckSample("SELECT idempotency_key" + stuckRows + " ORDER BY lease_until", utc)
				: List.of();
		ClaimTableCounts counts = new ClaimTableCounts(failed, stuck, sample, now);
		report(this.last.getAndSet(counts), counts);
		return counts;
	}

	/**
	 * Return the counts of the latest run.
	 * @return the counts, or {@code null} before the first run
	 */
	public @Nullable ClaimTableCounts lastCounts() {
		return this.last.get();
	}

	private long count(String sql, LocalDateTime... times) {
		Long count = this.jdbc.query(sql, (ps) -> bindTimes(ps, times), (rs) -> rs.next() ? rs.getLong(1) : 0L);
		return Objects.requireNonNull(count);
	}

	private List<String> stuckSample(String sql, LocalDateTime utc) {
		return this.sampleJdbc.query(sql, (ps) -> bindTimes(ps, utc), (rs, row) -> rs.getString(1));
	}

	private void bindTimes(PreparedStatement ps, LocalDateTime... times) throws SQLException {
		for (int i = 0; i < times.length; i++) {
			this.dialect.bindTime(ps, i + 1, times[i]);
		}
	}

	private void report(@Nullable ClaimTableCounts previous, ClaimTableCounts counts) {
		long stuckBefore = (previous != null) ? previous.stuck() : 0;
		if (counts.stuck() > stuckBefore) {
			logger.warn("{} row(s) of {} are PROCESSING with an expired lease (was {}); sample keys: {}. A LEASED "
					+ "consumer died or outlived its lease and the record was not delivered again, so its side effect "
					+ "may or may not have happened. See the runbook section 'Stuck idempotency rows'", counts.stuck(),
					this.table, stuckBefore, counts.stuckSampleKeys().stream().map(this.masker::mask).toList());
		}
		else if (counts.stuck() == 0 && stuckBefore > 0) {
			logger.info("No idempotency rows of {} are stuck any more (were {})", this.table, stuckBefore);
		}
		if (previous != null && counts.failed() > previous.failed()) {
			logger.warn("{} more FAILED row(s) in {} since the last check ({} now): deliveries were dead-lettered. "
					+ "See the runbook section 'FAILED idempotency rows rising'", counts.failed() - previous.failed(),
					this.table, counts.failed());
		}
	}

}

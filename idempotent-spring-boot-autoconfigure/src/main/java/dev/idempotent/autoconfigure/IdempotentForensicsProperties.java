package dev.idempotent.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Reconciliation and forensics, under {@code idempotent.*}: declared audits of business tables, the checks of the
 * idempotency table, the hit-ratio monitor and payload fingerprints.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotent")
public class IdempotentForensicsProperties {

	/**
	 * Reconciliation audits by name: each counts the business keys written more than once in a table (GROUP BY
	 * key-column HAVING COUNT(*) > 1) on a schedule, shown as the gauge idempotent.audit.duplicates{audit=name}.
	 */
	private final Map<String, Audit> audits = new LinkedHashMap<>();

	/**
	 * Timeout of each query of the audits and of the table check.
	 */
	private Duration auditQueryTimeout = Duration.ofSeconds(30);

	private final TableCheck tableCheck = new TableCheck();

	private final HitRatio hitRatio = new HitRatio();

	private final Fingerprint fingerprint = new Fingerprint();

	public Map<String, Audit> getAudits() {
		return this.audits;
	}

	public Duration getAuditQueryTimeout() {
		return this.auditQueryTimeout;
	}

	public void setAuditQueryTimeout(Duration auditQueryTimeout) {
		this.auditQueryTimeout = auditQueryTimeout;
	}

	public TableCheck getTableCheck() {
		return this.tableCheck;
	}

	public HitRatio getHitRatio() {
		return this.hitRatio;
	}

	public Fingerprint getFingerprint() {
		return this.fingerprint;
	}

	/**
	 * One reconciliation audit.
	 */
	public static class Audit {

		/**
		 * Business table to audit, optionally schema-qualified. Letters, digits and underscores only.
		 */
		private @Nullable String table;

		/**
		 * Column holding the business key that must occur at most once (e.g. order_id). Letters, digits and
		 * underscores only.
		 */
		private @Nullable String keyColumn;

		/**
		 * Optional SQL condition restricting the audited rows (e.g. biz_type = 'PAY_CREDIT'). Trusted SQL from
		 * configuration, inserted as it is into the WHERE clause: never build it from user input. Statement
		 * separators and comments are refused.
		 */
		private @Nullable String filter;

		/**
		 * How often the audit runs. The first run is one interval after startup, or one minute if that is sooner.
		 */
		private Duration interval = Duration.ofHours(1);

		public @Nullable String getTable() {
			return this.table;
		}

		public void setTable(@Nullable String table) {
			this.table = table;
		}

		public @Nullable String getKeyColumn() {
			return this.keyColumn;
		}

		public void setKeyColumn(@Nullable String keyColumn) {
			this.keyColumn = keyColumn;
		}

		public @Nullable String getFilter() {
			return this.filter;
		}

		public void setFilter(@Nullable String filter) {
			this.filter = filter;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

	}

	/**
	 * The scheduled check of the idempotency table: FAILED rows, and PROCESSING rows whose lease expired.
	 */
	public static class TableCheck {

		/**
		 * Whether to count FAILED and stuck rows on a schedule (gauge idempotent.table.rows{status}).
		 */
		private boolean enabled = true;

		/**
		 * How often the idempotency table is checked. The first check is one interval after startup, or one minute
		 * if that is sooner.
		 */
		private Duration interval = Duration.ofMinutes(5);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

	}

	/**
	 * The hit ratio per scope over a sliding window (gauge idempotent.hit.ratio{scope}) and its warning.
	 */
	public static class HitRatio {

		/**
		 * Whether to watch the hit ratio of each scope.
		 */
		private boolean enabled = true;

		/**
		 * Length of the sliding window, moved in steps of a tenth of it.
		 */
		private Duration window = Duration.ofMinutes(5);

		/**
		 * Hit ratio (0 to 1) above which a WARN says that an upstream is probably re-sending in bulk.
		 */
		private double threshold = 0.5;

		/**
		 * Fewest claims in the window before the ratio can warn, so that a handful of replays does not.
		 */
		private long minSamples = 100;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getWindow() {
			return this.window;
		}

		public void setWindow(Duration window) {
			this.window = window;
		}

		public double getThreshold() {
			return this.threshold;
		}

		public void setThreshold(double threshold) {
			this.threshold = threshold;
		}

		public long getMinSamples() {
			return this.minSamples;
		}

		public void setMinSamples(long minSamples) {
			this.minSamples = minSamples;
		}

	}

	/**
	 * Payload fingerprints: a digest of each record's value stored with its claim, so that a hit whose payload
	 * differs is reported as a conflict (WARN on dev.idempotent.conflicts, counter idempotent.conflicts).
	 */
	public static class Fingerprint {

		/**
		 * Whether TRANSACTIONAL claims store the SHA-256 of the record's value (byte[] as is, String as UTF-8, other
		 * values by their own toString()) in the payload_fingerprint column. The table must have that column; the
		 * startup check names the ALTER TABLE to run.
		 */
		private boolean enabled;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

}

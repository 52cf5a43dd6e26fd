package dev.idempotent.autoconfigure;

import java.time.Duration;

import dev.idempotent.kafka.WindowCheckMode;
import dev.idempotent.retention.LateRecordPolicy;
import dev.idempotent.retention.RetentionMode;
import dev.idempotent.retention.RetentionPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Retention of the idempotency table, under {@code idempotent.retention.*}: the deduplication window. Off by
 * default: keys are kept forever.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotent.retention")
public class IdempotentRetentionProperties {

	/**
	 * Whether rows older than the retention period are removed from the idempotency table. When enabled, a period
	 * is required. A record delivered again after its key's row was removed is processed again.
	 */
	private boolean enabled;

	/**
	 * How long a row is kept after its last update, e.g. '30d'. It must cover the longest possible replay: the
	 * retention of the listeners' topics (checked at startup) and of their dead-letter topics.
	 */
	private @Nullable Duration period;

	/**
	 * What happens to a row older than the period: 'archive' (moved to the archive table) or 'delete'.
	 */
	private RetentionMode mode = RetentionMode.ARCHIVE;

	/**
	 * Name of the archive table, optionally schema-qualified. Defaults to the idempotency table's name plus
	 * '_archive'.
	 */
	private @Nullable String archiveTableName;

	/**
	 * Whether FAILED rows (dead-lettered records waiting for a replay) are removed too. A replay after the removal
	 * is then processed as a new key.
	 */
	private boolean includeFailed;

	/**
	 * Rows per transaction. Each batch locks its rows only while it is copied and deleted.
	 */
	private int batchSize = RetentionPolicy.DEFAULT_BATCH_SIZE;

	/**
	 * Pause between the end of a run and the start of the next.
	 */
	private Duration interval = Duration.ofMinutes(10);

	/**
	 * Pause between the start of the application and the first run.
	 */
	private Duration initialDelay = Duration.ofMinutes(1);

	/**
	 * What to do at startup when a topic of an idempotent listener keeps records longer than the period (read
	 * from the broker; unlimited retention and compaction count as forever): 'warn', 'fail' or 'none'.
	 */
	private WindowCheckMode windowCheck = WindowCheckMode.WARN;

	/**
	 * What to do with a record whose timestamp is older than the period when it is delivered: 'process' (WARN
	 * and count, then process as usual) or 'dead-letter' (count, then send it to the dead-letter topic at once).
	 */
	private LateRecordPolicy lateRecords = LateRecordPolicy.PROCESS;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable Duration getPeriod() {
		return this.period;
	}

	public void setPeriod(@Nullable Duration period) {
		this.period = period;
	}

	public RetentionMode getMode() {
		return this.mode;
	}

	public void setMode(RetentionMode mode) {
		this.mode = mode;
	}

	public @Nullable String getArchiveTableName() {
		return this.archiveTableName;
	}

	public void setArchiveTableName(@Nullable String archiveTableName) {
		this.archiveTableName = archiveTableName;
	}

	public boolean isIncludeFailed() {
		return this.includeFailed;
	}

	public void setIncludeFailed(boolean includeFailed) {
		this.includeFailed = includeFailed;
	}

	public int getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(int batchSize) {
		this.batchSize = batchSize;
	}

	public Duration getInterval() {
		return this.interval;
	}

	public void setInterval(Duration interval) {
		this.interval = interval;
	}

	public Duration getInitialDelay() {
		return this.initialDelay;
	}

	public void setInitialDelay(Duration initialDelay) {
		this.initialDelay = initialDelay;
	}

	public WindowCheckMode getWindowCheck() {
		return this.windowCheck;
	}

	public void setWindowCheck(WindowCheckMode windowCheck) {
		this.windowCheck = windowCheck;
	}

	public LateRecordPolicy getLateRecords() {
		return this.lateRecords;
	}

	public void setLateRecords(LateRecordPolicy lateRecords) {
		this.lateRecords = lateRecords;
	}

}

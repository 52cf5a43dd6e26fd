package dev.idempotent.autoconfigure;

import java.time.Duration;

import dev.idempotent.jdbc.TableName;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Outputs of claims, under {@code idempotent.outputs.*}: what an {@code @IdempotentListener} method sends through
 * Spring's {@code KafkaTemplate} (and its {@code @SendTo} replies) is stored with its claim, awaited before the offset
 * commit and sent again when a redelivery is an idempotent hit.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotent.outputs")
public class IdempotentOutputsProperties {

	/** The default {@link #maxBytes}. */
	static final DataSize DEFAULT_MAX_BYTES = DataSize.ofMegabytes(1);

	/**
	 * Whether listeners capture their outputs (each may opt out with @IdempotentListener(outputs = false)). Off: a
	 * hit sends nothing, and an output lost in a crash after the claim's commit is lost for good; a listener that
	 * sends then logs one WARN.
	 */
	private boolean enabled = true;

	/**
	 * The largest serialized key or value of one output. A larger one is not sent: the claim rolls back and the record
	 * goes to the dead-letter topic with the reason.
	 */
	private DataSize maxBytes = DEFAULT_MAX_BYTES;

	/**
	 * The most outputs one claim may send. One more is not sent: the claim rolls back and the record goes to the
	 * dead-letter topic with the reason.
	 */
	private int maxCount = 100;

	/**
	 * How long to wait, after a claim committed, for the broker to acknowledge its outputs before the offset is
	 * committed. Past it the record is retried, and the retry (a hit) sends the stored outputs again.
	 */
	private Duration ackTimeout = Duration.ofSeconds(30);

	/**
	 * The most bytes of stored outputs a replay reads into memory at once: the hits of a batch are read together up to
	 * it, and a claim whose outputs are larger is read and sent a part at a time.
	 */
	private DataSize replayBuffer = DataSize.ofMegabytes(16);

	/**
	 * Name of the output table, optionally schema-qualified. Defaults to the idempotency table's name plus '_output'.
	 */
	private @Nullable String tableName;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public DataSize getMaxBytes() {
		return this.maxBytes;
	}

	public void setMaxBytes(DataSize maxBytes) {
		this.maxBytes = maxBytes;
	}

	public int getMaxCount() {
		return this.maxCount;
	}

	public void setMaxCount(int maxCount) {
		this.maxCount = maxCount;
	}

	public Duration getAckTimeout() {
		return this.ackTimeout;
	}

	public void setAckTimeout(Duration ackTimeout) {
		this.ackTimeout = ackTimeout;
	}

	public DataSize getReplayBuffer() {
		return this.replayBuffer;
	}

	public void setReplayBuffer(DataSize replayBuffer) {
		this.replayBuffer = replayBuffer;
	}

	public @Nullable String getTableName() {
		return this.tableName;
	}

	public void setTableName(@Nullable String tableName) {
		this.tableName = tableName;
	}

	/**
	 * Return the output table.
	 * @param claimTable the idempotency table
	 * @return the configured table, or the idempotency table's name plus {@value TableName#OUTPUT_SUFFIX}
	 */
	TableName table(TableName claimTable) {
		return (this.tableName != null) ? new TableName(this.tableName) : claimTable.outputs();
	}

}

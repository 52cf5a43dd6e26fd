package dev.idempotent.autoconfigure;

import dev.idempotent.jdbc.TableName;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Consumed offsets stored with the claims, under {@code idempotent.offsets.*}: each claim transaction also stores the
 * next offset of the partitions it settles, and consumers seek to the stored offsets when they are assigned partitions
 * (docs/clusters.md, "Offsets in the claim's transaction").
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotent.offsets")
public class IdempotentOffsetsProperties {

	/**
	 * Whether each claim transaction also stores the next offset of the partitions it settles, for its consumer group,
	 * and consumers seek to the stored offsets when they are assigned partitions. Then a database that loses commits
	 * (a failover to a replica that lacked them) loses their offsets too and the records are read again, and a crash
	 * between the database commit and Kafka's offset commit redelivers nothing. Kafka's committed offsets are still
	 * committed, for tools and lag monitoring.
	 */
	private boolean enabled;

	/**
	 * Name of the offset table, optionally schema-qualified. Defaults to the idempotency table's name plus '_offset'.
	 */
	private @Nullable String tableName;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getTableName() {
		return this.tableName;
	}

	public void setTableName(@Nullable String tableName) {
		this.tableName = tableName;
	}

	/**
	 * Return the offset table.
	 * @param claimTable the idempotency table
	 * @return the configured table, or the idempotency table's name plus {@value TableName#OFFSET_SUFFIX}
	 */
	TableName table(TableName claimTable) {
		return (this.tableName != null) ? new TableName(this.tableName) : claimTable.offsets();
	}

}

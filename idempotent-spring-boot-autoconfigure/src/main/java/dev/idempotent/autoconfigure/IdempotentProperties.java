package dev.idempotent.autoconfigure;

import java.time.Duration;

import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.ReplyMode;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.key.KeyValidator;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Configuration of idempotent listeners, under {@code idempotent.*}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotent")
public class IdempotentProperties {

	/**
	 * Whether the library is on. When off, no bean of the library is created: @IdempotentListener methods run as
	 * plain listeners (every record processed, nothing claimed), with the service's own error handling.
	 */
	private boolean enabled = true;

	/**
	 * Shadow mode, for a rollout: every key is claimed and every would-be duplicate is counted and logged as a hit
	 * (its log line ends in 'processed (shadow mode)'), but the listener still processes it. Outputs and replies are
	 * not stored and the Redis fast path is not asked. Turn it off to skip duplicates.
	 */
	private boolean shadow;

	/**
	 * Name of the idempotency table, optionally schema-qualified. Letters, digits and underscores only; it is
	 * validated because it is written into SQL.
	 */
	private String tableName = TableName.DEFAULT;

	/**
	 * Kafka header that carries the idempotency key when a listener has no key expression; also the header the
	 * producer interceptor adds (idempotent.producer.add-key-header).
	 */
	private String keyHeader = IdempotencyHeaders.KEY;

	/**
	 * Maximum length of an idempotency key in characters (Unicode code points), prefix included. Longer keys
	 * are rejected and dead-lettered. Must not exceed the key column's length (128 in the shipped DDL).
	 */
	private int maxKeyLength = KeyValidator.DEFAULT_MAX_LENGTH;

	/**
	 * Lease of LEASED claims whose annotation names none: longer than the listener's longest run. A consumer that
	 * dies holding a lease blocks its key for at most this long.
	 */
	private Duration defaultLease = Duration.ofMinutes(1);

	/**
	 * Whether idempotency keys are masked in logs and in the actuator endpoint (keys can be personal data). When
	 * masked, only the first and last two characters of keys of 8 or more characters show, with a short
	 * fingerprint (keyed by key-mask-secret) to correlate lines about one key.
	 */
	private boolean maskKeys = true;

	/**
	 * What to do at startup with an @IdempotentListener method that replies (@SendTo) but whose reply cannot be
	 * stored with its claim (a batch listener; a Message, Iterable, interface or abstract return type; outputs not
	 * captured): 'refuse' (the default) stops the application naming why; 'warn' starts it with one warning per
	 * method, and a redelivered request that is a hit then gets no reply. Replies that can be stored need neither.
	 */
	private ReplyMode unstoredReplies = ReplyMode.REFUSE;

	/**
	 * Suffix of the dead-letter topic of the starter's error handler: a record from topic 'orders' goes to 'orders' +
	 * suffix.
	 */
	private String deadLetterSuffix = ".DLT";

	/**
	 * Secret of the fingerprints of masked keys (HMAC-SHA256), at least 16 characters. Set the same secret on every
	 * instance for masks that correlate across instances and restarts; unset, each process draws a random one. Keep
	 * it as secret as the keys: with it, low-entropy keys (phone numbers, order numbers) can be found from their masks.
	 */
	private @Nullable String keyMaskSecret;

	private final Jdbc jdbc = new Jdbc();

	private final Retry retry = new Retry();

	private final ErrorHandling errorHandling = new ErrorHandling();

	private final Producer producer = new Producer();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isShadow() {
		return this.shadow;
	}

	public void setShadow(boolean shadow) {
		this.shadow = shadow;
	}

	public String getTableName() {
		return this.tableName;
	}

	public void setTableName(String tableName) {
		this.tableName = tableName;
	}

	public String getKeyHeader() {
		return this.keyHeader;
	}

	public void setKeyHeader(String keyHeader) {
		this.keyHeader = keyHeader;
	}

	public int getMaxKeyLength() {
		return this.maxKeyLength;
	}

	public void setMaxKeyLength(int maxKeyLength) {
		this.maxKeyLength = maxKeyLength;
	}

	public Duration getDefaultLease() {
		return this.defaultLease;
	}

	public void setDefaultLease(Duration defaultLease) {
		this.defaultLease = defaultLease;
	}

	/**
	 * Deprecated: {@code idempotent.retry.transaction-retries}.
	 * @return the retries of a claim's transaction
	 * @deprecated use {@link Retry#getTransactionRetries()}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	@DeprecatedConfigurationProperty(replacement = "idempotent.retry.transaction-retries", reason = "Grouped with the other retry settings")
	public int getMaxTransientRetries() {
		return this.retry.getTransactionRetries();
	}

	/**
	 * Deprecated: {@code idempotent.retry.transaction-retries}.
	 * @param maxTransientRetries the retries of a claim's transaction
	 * @deprecated use {@link Retry#setTransactionRetries(int)}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public void setMaxTransientRetries(int maxTransientRetries) {
		this.retry.setTransactionRetries(maxTransientRetries);
	}

	/**
	 * Deprecated: {@code idempotent.default-lease}.
	 * @return the default lease
	 * @deprecated use {@link #getDefaultLease()}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	@DeprecatedConfigurationProperty(replacement = "idempotent.default-lease", reason = "Named for what it is: the lease of listeners that name none")
	public Duration getLease() {
		return this.defaultLease;
	}

	/**
	 * Deprecated: {@code idempotent.default-lease}.
	 * @param lease the default lease
	 * @deprecated use {@link #setDefaultLease(Duration)}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public void setLease(Duration lease) {
		this.defaultLease = lease;
	}

	public boolean isMaskKeys() {
		return this.maskKeys;
	}

	public void setMaskKeys(boolean maskKeys) {
		this.maskKeys = maskKeys;
	}

	public ReplyMode getUnstoredReplies() {
		return this.unstoredReplies;
	}

	public void setUnstoredReplies(ReplyMode unstoredReplies) {
		this.unstoredReplies = unstoredReplies;
	}

	/**
	 * Deprecated: {@code idempotent.unstored-replies}.
	 * @return what to do with replies that cannot be stored
	 * @deprecated use {@link #getUnstoredReplies()}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	@DeprecatedConfigurationProperty(replacement = "idempotent.unstored-replies", reason = "Named for what it governs: replies that cannot be stored with their claim")
	public ReplyMode getReplies() {
		return this.unstoredReplies;
	}

	/**
	 * Deprecated: {@code idempotent.unstored-replies}.
	 * @param replies what to do with replies that cannot be stored
	 * @deprecated use {@link #setUnstoredReplies(ReplyMode)}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public void setReplies(ReplyMode replies) {
		this.unstoredReplies = replies;
	}

	public String getDeadLetterSuffix() {
		return this.deadLetterSuffix;
	}

	public void setDeadLetterSuffix(String deadLetterSuffix) {
		this.deadLetterSuffix = deadLetterSuffix;
	}

	public @Nullable String getKeyMaskSecret() {
		return this.keyMaskSecret;
	}

	public void setKeyMaskSecret(@Nullable String keyMaskSecret) {
		this.keyMaskSecret = keyMaskSecret;
	}

	/**
	 * Return how keys are rendered in logs and the actuator endpoint, from {@code mask-keys} and
	 * {@code key-mask-secret} (see {@link KeyMasker#of(boolean, String)}).
	 * @return the masker, never {@code null}
	 * @throws IllegalArgumentException if the secret is shorter than {@value KeyMasker#MIN_SECRET_LENGTH} characters
	 */
	public KeyMasker keyMasker() {
		return KeyMasker.of(this.maskKeys, this.keyMaskSecret);
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	public Retry getRetry() {
		return this.retry;
	}

	/**
	 * Deprecated: the settings moved to {@code idempotent.retry.*} and {@code idempotent.dead-letter-suffix}.
	 * @return a view that reads and writes the new settings
	 * @deprecated use {@link #getRetry()} and {@link #getDeadLetterSuffix()}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public ErrorHandling getErrorHandling() {
		return this.errorHandling;
	}

	public Producer getProducer() {
		return this.producer;
	}

	/**
	 * JDBC settings of the idempotency table.
	 */
	public static class Jdbc {

		/**
		 * When to create the idempotency table from the shipped DDL at startup: 'embedded' (only for an
		 * embedded database such as H2), 'always', or 'never' (Flyway/Liquibase users copy the DDL instead).
		 */
		private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

		/**
		 * SQL dialect of the business database: 'mysql', 'mariadb', 'postgresql' or 'h2'. Detected from the JDBC metadata when
		 * not set.
		 */
		private @Nullable String dialect;

		/**
		 * What to do when the startup check of the idempotency table (table, columns, unique index on (scope,
		 * idempotency_key), key length, byte-for-byte collation) finds a problem: 'fail', 'warn' or 'none'.
		 */
		private SchemaValidationMode schemaValidation = SchemaValidationMode.FAIL;

		public SchemaValidationMode getSchemaValidation() {
			return this.schemaValidation;
		}

		public void setSchemaValidation(SchemaValidationMode schemaValidation) {
			this.schemaValidation = schemaValidation;
		}

		public DatabaseInitializationMode getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public @Nullable String getDialect() {
			return this.dialect;
		}

		public void setDialect(@Nullable String dialect) {
			this.dialect = dialect;
		}

	}

	/**
	 * Retries: of a claim's transaction on the consumer thread, and of a failed record by the starter's error handler
	 * (or one built with IdempotentErrorHandlers) before it is dead-lettered.
	 */
	public static class Retry {

		/**
		 * Retries of a failed record before it is dead-lettered. Records with a bad key are never retried.
		 */
		private long maxRetries = 3;

		/**
		 * Pause between retries of a failed record; also the first pause of the retries of a transient failure.
		 */
		private Duration interval = Duration.ofMillis(500);

		/**
		 * Longest pause between retries of a record that failed for a transient reason (the database down or
		 * restarting, a lock or lease held elsewhere). Such records are retried until they pass, never
		 * dead-lettered; pauses start at the interval and double up to this.
		 */
		private Duration transientMaxInterval = Duration.ofSeconds(10);

		/**
		 * Retries of a claim's transaction on the consumer thread, before the error handler sees the record, after
		 * the claim hit a deadlock or lock-wait timeout or the database rolled the transaction back for a conflict.
		 */
		private int transactionRetries = TransactionalClaimExecutor.DEFAULT_MAX_TRANSIENT_RETRIES;

		public long getMaxRetries() {
			return this.maxRetries;
		}

		public void setMaxRetries(long maxRetries) {
			this.maxRetries = maxRetries;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

		public Duration getTransientMaxInterval() {
			return this.transientMaxInterval;
		}

		public void setTransientMaxInterval(Duration transientMaxInterval) {
			this.transientMaxInterval = transientMaxInterval;
		}

		public int getTransactionRetries() {
			return this.transactionRetries;
		}

		public void setTransactionRetries(int transactionRetries) {
			this.transactionRetries = transactionRetries;
		}

	}

	/**
	 * Deprecated names of the retry settings ({@code idempotent.error-handling.*}): each reads and writes its
	 * replacement.
	 *
	 * @deprecated use {@link Retry} and {@link IdempotentProperties#getDeadLetterSuffix()}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public class ErrorHandling {

		@DeprecatedConfigurationProperty(replacement = "idempotent.retry.max-retries", reason = "Grouped with the other retry settings")
		public long getMaxRetries() {
			return IdempotentProperties.this.retry.getMaxRetries();
		}

		public void setMaxRetries(long maxRetries) {
			IdempotentProperties.this.retry.setMaxRetries(maxRetries);
		}

		@DeprecatedConfigurationProperty(replacement = "idempotent.retry.interval", reason = "Grouped with the other retry settings")
		public Duration getRetryInterval() {
			return IdempotentProperties.this.retry.getInterval();
		}

		public void setRetryInterval(Duration retryInterval) {
			IdempotentProperties.this.retry.setInterval(retryInterval);
		}

		@DeprecatedConfigurationProperty(replacement = "idempotent.retry.transient-max-interval", reason = "Grouped with the other retry settings")
		public Duration getTransientMaxInterval() {
			return IdempotentProperties.this.retry.getTransientMaxInterval();
		}

		public void setTransientMaxInterval(Duration transientMaxInterval) {
			IdempotentProperties.this.retry.setTransientMaxInterval(transientMaxInterval);
		}

		@DeprecatedConfigurationProperty(replacement = "idempotent.dead-letter-suffix", reason = "Not a retry setting")
		public String getDeadLetterSuffix() {
			return IdempotentProperties.this.deadLetterSuffix;
		}

		public void setDeadLetterSuffix(String deadLetterSuffix) {
			IdempotentProperties.this.deadLetterSuffix = deadLetterSuffix;
		}

	}

	/**
	 * The producer side, for applications that publish records to idempotent consumers.
	 */
	public static class Producer {

		/**
		 * Whether Spring Boot's producer factory gets an interceptor that adds a random UUID key-header (the header
		 * named by idempotent.key-header) to every record sent without one. Existing headers are never replaced and
		 * interceptors already in interceptor.classes are kept.
		 */
		private boolean addKeyHeader;

		/**
		 * Whether to log a warning at startup for each producer factory whose settings can lose acknowledged records
		 * (acks other than all) or write a retried send twice (enable.idempotence off).
		 */
		private boolean warnUnsafeSettings = true;

		public boolean isAddKeyHeader() {
			return this.addKeyHeader;
		}

		public void setAddKeyHeader(boolean addKeyHeader) {
			this.addKeyHeader = addKeyHeader;
		}

		public boolean isWarnUnsafeSettings() {
			return this.warnUnsafeSettings;
		}

		public void setWarnUnsafeSettings(boolean warnUnsafeSettings) {
			this.warnUnsafeSettings = warnUnsafeSettings;
		}

	}

}

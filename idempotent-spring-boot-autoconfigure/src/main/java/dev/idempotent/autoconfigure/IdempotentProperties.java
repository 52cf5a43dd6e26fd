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
	 * How often a transaction is retried, on the consumer thread, after its claim hit a deadlock or
	 * lock-wait timeout.
	 */
	private int maxTransientRetries = TransactionalClaimExecutor.DEFAULT_MAX_TRANSIENT_RETRIES;

	/**
	 * Lease of LEASED claims whose annotation names none: longer than the listener's longest run. A consumer that
	 * dies holding a lease blocks its key for at most this long.
	 */
	private Duration lease = Duration.ofMinutes(1);

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
	private ReplyMode replies = ReplyMode.REFUSE;

	/**
	 * Secret of the fingerprints of masked keys (HMAC-SHA256), at least 16 characters. Set the same secret on every
	 * instance for masks that correlate across instances and restarts; unset, each process draws a random one. Keep
	 * it as secret as the keys: with it, low-entropy keys (phone numbers, order numbers) can be found from their masks.
	 */
	private @Nullable String keyMaskSecret;

	private final Jdbc jdbc = new Jdbc();

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

	public int getMaxTransientRetries() {
		return this.maxTransientRetries;
	}

	public void setMaxTransientRetries(int maxTransientRetries) {
		this.maxTransientRetries = maxTransientRetries;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = lease;
	}

	public boolean isMaskKeys() {
		return this.maskKeys;
	}

	public void setMaskKeys(boolean maskKeys) {
		this.maskKeys = maskKeys;
	}

	public ReplyMode getReplies() {
		return this.replies;
	}

	public void setReplies(ReplyMode replies) {
		this.replies = replies;
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
	 * The error handler the starter provides when the application defines no CommonErrorHandler.
	 */
	public static class ErrorHandling {

		/**
		 * Retries of a failed record before it is dead-lettered. Records with a bad key are never retried.
		 */
		private long maxRetries = 3;

		/**
		 * Pause between retries of a failed record.
		 */
		private Duration retryInterval = Duration.ofMillis(500);

		/**
		 * Longest pause between retries of a record that failed for a transient reason (the database down or
		 * restarting, a lock or lease held elsewhere). Such records are retried until they pass, never
		 * dead-lettered; pauses start at retry-interval and double up to this.
		 */
		private Duration transientMaxInterval = Duration.ofSeconds(10);

		/**
		 * Suffix of the dead-letter topic: a record from topic 'orders' goes to 'orders' + suffix.
		 */
		private String deadLetterSuffix = ".DLT";

		public long getMaxRetries() {
			return this.maxRetries;
		}

		public void setMaxRetries(long maxRetries) {
			this.maxRetries = maxRetries;
		}

		public Duration getRetryInterval() {
			return this.retryInterval;
		}

		public void setRetryInterval(Duration retryInterval) {
			this.retryInterval = retryInterval;
		}

		public Duration getTransientMaxInterval() {
			return this.transientMaxInterval;
		}

		public void setTransientMaxInterval(Duration transientMaxInterval) {
			this.transientMaxInterval = transientMaxInterval;
		}

		public String getDeadLetterSuffix() {
			return this.deadLetterSuffix;
		}

		public void setDeadLetterSuffix(String deadLetterSuffix) {
			this.deadLetterSuffix = deadLetterSuffix;
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

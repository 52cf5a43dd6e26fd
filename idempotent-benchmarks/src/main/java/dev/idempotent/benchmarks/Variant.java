package dev.idempotent.benchmarks;

/** The variants compared, in report order. */
enum Variant {

	PLAIN("1. plain @KafkaListener, no deduplication (ceiling)", Variants.Plain.class, 0, false),

	PLAIN_BATCH_500("1b. plain batch @KafkaListener, batches of 500, the batch write of 3, no deduplication (batch ceiling)",
			Variants.PlainBatch.class, 500, false),

	PLAIN_BATCH_500_UNBATCHED("1c. plain batch @KafkaListener, batches of 500, each record written as 1 writes it"
			+ " (unbatched), one transaction per poll, no deduplication (group commit ceiling)",
			Variants.PlainBatchRecordByRecord.class, 500, false),

	PLAIN_BATCH_500_HAND_CLAIM("1d. = 1c after a claim written by hand: one multi-row INSERT of the poll's keys that"
			+ " skips taken keys, the records whose key it inserted written (group commit's floor in this harness)",
			Variants.PlainBatchRecordByRecord.class, 500, false, false, "--bench.hand-claim=true"),

	IDEMPOTENT("2. @IdempotentListener, single records", Variants.Idempotent.class, 0, true),

	IDEMPOTENT_GROUP_COMMIT("2b. = 2, group commit (idempotent.group-commit.enabled=true, code unchanged)",
			Variants.Idempotent.class, 0, true, false, "--idempotent.group-commit.enabled=true"),

	IDEMPOTENT_DRIVER("2c. = 2 with the driver settings", Variants.Idempotent.class, 0, true, true),

	IDEMPOTENT_OFFSETS("2h. = 2, offsets stored in the claim's transaction (idempotent.offsets.enabled=true)",
			Variants.Idempotent.class, 0, true, false, "--idempotent.offsets.enabled=true"),

	IDEMPOTENT_GROUP_COMMIT_OFFSETS("2i. = 2b, offsets stored in the claims' transaction",
			Variants.Idempotent.class, 0, true, false, "--idempotent.group-commit.enabled=true",
			"--idempotent.offsets.enabled=true"),

	IDEMPOTENT_GROUP_COMMIT_DRIVER("2d. = 2b with the driver settings", Variants.Idempotent.class, 0, true, true,
			"--idempotent.group-commit.enabled=true"),

	IDEMPOTENT_OUTPUT("2e. = 2, sending one output per record (KafkaTemplate), captured: stored with the claim, awaited"
			+ " before the offset", Variants.IdempotentOutput.class, 0, true),

	IDEMPOTENT_OUTPUT_UNCAPTURED("2f. = 2e with capture off (idempotent.outputs.enabled=false): the output is sent,"
			+ " not stored nor awaited", Variants.IdempotentOutput.class, 0, true, false,
			"--idempotent.outputs.enabled=false"),

	IDEMPOTENT_OUTPUT_NO_LINGER("2g. = 2e with the producer's linger.ms=0 (each output is awaited before the offset)",
			Variants.IdempotentOutput.class, 0, true, false, "--spring.kafka.producer.properties.linger.ms=0"),

	IDEMPOTENT_BATCH_100("3a. @IdempotentListener, batches of 100", Variants.IdempotentBatch.class, 100, true),

	IDEMPOTENT_BATCH_500("3b. @IdempotentListener, batches of 500", Variants.IdempotentBatch.class, 500, true),

	IDEMPOTENT_BATCH_500_DRIVER("3c. = 3b with the driver settings", Variants.IdempotentBatch.class, 500, true, true),

	IDEMPOTENT_BATCH_500_OFFSETS("3d. = 3b, offsets stored in the claims' transaction", Variants.IdempotentBatch.class,
			500, true, false, "--idempotent.offsets.enabled=true"),

	SELECT_THEN_INSERT("4. SELECT-then-INSERT in the transaction", Variants.SelectThenInsert.class, 0, false),

	SPRING_INTEGRATION("5. Spring Integration IdempotentReceiverInterceptor + JdbcMetadataStore",
			Variants.SpringIntegration.class, 0, false),

	REDIS("6. Redis SET NX EX, then the database write", Variants.Redis.class, 0, false),

	REPLAY("7a. replay, every record a hit: @IdempotentListener, single records, database claim",
			ReplayVariants.DatabaseReplay.class, 0, true),

	REPLAY_FAST_PATH("7b. replay, every record a hit: @IdempotentListener, single records, Redis fast path",
			ReplayVariants.FastPathReplay.class, 0, true),

	REPLAY_GROUP_COMMIT("7c. = 7a with group commit (idempotent.group-commit.enabled=true, code unchanged)",
			ReplayVariants.DatabaseReplay.class, 0, true, false, "--idempotent.group-commit.enabled=true"),

	REPLAY_FAST_PATH_GROUP_COMMIT("7d. = 7b with group commit: one MGET per group of records",
			ReplayVariants.FastPathReplay.class, 0, true, false, "--idempotent.group-commit.enabled=true");

	final String title;

	final Class<?> configuration;

	final int batchSize;

	final boolean library;

	/**
	 * Whether the run uses the driver settings the docs recommend: {@link #DRIVER_URL_PARAMETERS} on the JDBC URL and a
	 * pool whose connections are not in auto-commit mode (the transaction manager then skips two round trips per
	 * transaction).
	 */
	final boolean driverSettings;

	/** Extra application arguments. */
	final java.util.List<String> arguments;

	/** The driver settings added to the JDBC URL of {@link #driverSettings} variants (mysql-connector-j). */
	static final String DRIVER_URL_PARAMETERS = "cachePrepStmts=true&useServerPrepStmts=true&prepStmtCacheSize=250"
			+ "&prepStmtCacheSqlLimit=65536";

	Variant(String title, Class<?> configuration, int batchSize, boolean library) {
		this(title, configuration, batchSize, library, false);
	}

	Variant(String title, Class<?> configuration, int batchSize, boolean library, boolean driverSettings,
			String... arguments) {
		this.title = title;
		this.configuration = configuration;
		this.batchSize = batchSize;
		this.library = library;
		this.driverSettings = driverSettings;
		this.arguments = java.util.List.of(arguments);
	}

}

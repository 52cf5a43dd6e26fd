package dev.idempotent.benchmarks;

/** The variants compared, in report order. */
enum Variant {

	PLAIN("1. plain @KafkaListener, no deduplication (ceiling)", Variants.Plain.class, 0, false),

	IDEMPOTENT("2. @IdempotentListener, single records", Variants.Idempotent.class, 0, true),

	IDEMPOTENT_BATCH_100("3a. @IdempotentListener, batches of 100", Variants.IdempotentBatch.class, 100, true),

	IDEMPOTENT_BATCH_500("3b. @IdempotentListener, batches of 500", Variants.IdempotentBatch.class, 500, true),

	SELECT_THEN_INSERT("4. SELECT-then-INSERT in the transaction", Variants.SelectThenInsert.class, 0, false),

	SPRING_INTEGRATION("5. Spring Integration IdempotentReceiverInterceptor + JdbcMetadataStore",
			Variants.SpringIntegration.class, 0, false),

	REDIS("6. Redis SET NX EX, then the database write", Variants.Redis.class, 0, false),

	REPLAY("7a. replay, every record a hit: @IdempotentListener, single records, database claim",
			ReplayVariants.DatabaseReplay.class, 0, true),

	REPLAY_FAST_PATH("7b. replay, every record a hit: @IdempotentListener, single records, Redis fast path",
			ReplayVariants.FastPathReplay.class, 0, true);

	final String title;

	final Class<?> configuration;

	final int batchSize;

	final boolean library;

	Variant(String title, Class<?> configuration, int batchSize, boolean library) {
		this.title = title;
		this.configuration = configuration;
		this.batchSize = batchSize;
		this.library = library;
	}

}

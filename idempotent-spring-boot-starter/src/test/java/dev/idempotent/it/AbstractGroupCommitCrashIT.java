package dev.idempotent.it;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The crash tests with group commit on for the child consumer's unchanged single-record listener
 * ({@code idempotent.group-commit.enabled=true}): the consumer is killed with SIGKILL mid-group, inside the group's
 * transaction (the records before the victim ran in it) and after the group's database commit but before the offset
 * commit; after a restart every key takes effect exactly once.
 */
abstract class AbstractGroupCommitCrashIT extends AbstractConsumerCrashIT {

	AbstractGroupCommitCrashIT(ItDatabase database) {
		super(database);
	}

	@Override
	List<String> childArguments() {
		return List.of("--idempotent.group-commit.enabled=true");
	}

	/** The records before the victim were polled with it and ran in its group's transaction: none committed. */
	@Override
	void afterCrashInsideTheTransaction(String group, List<String> keys, String victim) {
		assertThat(this.ledger.rows(group)).as("the group rolled back with the crash: group commit was in effect")
			.isZero();
	}

}

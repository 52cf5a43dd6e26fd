package dev.idempotent.it;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.builder.SpringApplicationBuilder;

import static org.assertj.core.api.Assertions.catchThrowable;

/** Why an application that the starter must refuse did not start: the innermost cause of its startup failure. */
final class StartupFailure {

	private StartupFailure() {
	}

	/**
	 * Run the application and return the innermost cause of what its startup threw.
	 * @return the root cause, or {@code null} if the application started (the caller's assertion then fails)
	 */
	static @Nullable Throwable rootCause(SpringApplicationBuilder application) {
		Throwable failure = catchThrowable(application::run);
		while (failure != null && failure.getCause() != null && failure.getCause() != failure) {
			failure = failure.getCause();
		}
		return failure;
	}

}

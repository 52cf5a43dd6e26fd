package dev.idempotent.retention;

import java.util.List;

/**
 * Observes retention, e.g. to count it. Every method has a no-op default. Methods are called on the retention
 * job's thread or, for {@link #onLateRecord}, on the consumer thread; they must be fast and must not throw.
 * <p>Implementations must be thread-safe.
 *
 * @since 0.1.0
 */
public interface RetentionListener {

	/** A listener that does nothing. */
	RetentionListener NO_OP = new RetentionListener() {
	};

	/**
	 * A batch of rows was committed.
	 * @param mode what was done to them
	 * @param rows how many rows, at least 1
	 */
	default void onRows(RetentionMode mode, int rows) {
	}

	/**
	 * A run of the retention job ended.
	 * @param success {@code false} if it ended with an error (the batches committed before it stay committed)
	 */
	default void onRun(boolean success) {
	}

	/**
	 * A record older than the retention period was delivered.
	 * @param policy what is done with it
	 */
	default void onLateRecord(LateRecordPolicy policy) {
	}

	/**
	 * Return a listener that calls each of the given ones in order.
	 * @param listeners the listeners, possibly empty
	 * @return {@link #NO_OP} for none, the listener itself for one, else a composite
	 */
	static RetentionListener of(List<? extends RetentionListener> listeners) {
		if (listeners.isEmpty()) {
			return NO_OP;
		}
		if (listeners.size() == 1) {
			return listeners.get(0);
		}
		List<RetentionListener> all = List.copyOf(listeners);
		return new RetentionListener() {

			@Override
			public void onRows(RetentionMode mode, int rows) {
				all.forEach((listener) -> listener.onRows(mode, rows));
			}

			@Override
			public void onRun(boolean success) {
				all.forEach((listener) -> listener.onRun(success));
			}

			@Override
			public void onLateRecord(LateRecordPolicy policy) {
				all.forEach((listener) -> listener.onLateRecord(policy));
			}

		};
	}

}

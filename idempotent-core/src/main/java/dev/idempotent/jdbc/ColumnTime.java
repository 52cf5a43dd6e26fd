package dev.idempotent.jdbc;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;

/**
 * How the idempotency table stores points in time: as UTC date-times without a zone, to the microsecond (the
 * columns' precision), whatever the JVM's and the database session's time zones are. Every time written to or
 * compared with the table's time columns goes through here (bound with {@link SqlDialect#bindTime}).
 *
 * @since 0.1.0
 */
public final class ColumnTime {

	private ColumnTime() {
	}

	/**
	 * Render an instant as the table stores it.
	 * @param instant the instant, never {@code null}
	 * @return the UTC date-time, truncated to microseconds
	 */
	public static LocalDateTime of(Instant instant) {
		return LocalDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
	}

	/**
	 * Read a time column back as an instant.
	 * @param time the column's value, may be {@code null}
	 * @return the instant, or {@code null} for {@code null}
	 */
	public static @Nullable Instant toInstant(@Nullable LocalDateTime time) {
		return (time != null) ? time.toInstant(ZoneOffset.UTC) : null;
	}

}

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
	 * Render a column time as SQL date-time text, {@code yyyy-MM-dd HH:mm:ss.ffffff}, for databases whose driver
	 * would drop the fraction of a bound temporal value (see {@link SqlDialect#bindTime}). Written by hand: it runs
	 * for every claim, and {@code DateTimeFormatter}'s fraction goes through {@code BigDecimal}.
	 * @param time the time, never {@code null}, with a year from 0 to 9999
	 * @return the text, always 26 characters
	 * @throws IllegalArgumentException if the year has more than four digits or is negative
	 */
	static String text(LocalDateTime time) {
		if (time.getYear() < 0 || time.getYear() > 9999) {
			throw new IllegalArgumentException("Year " + time.getYear() + " cannot be written as a column time");
		}
		StringBuilder text = new StringBuilder(26);
		digits(text, time.getYear(), 4).append('-');
		digits(text, time.getMonthValue(), 2).append('-');
		digits(text, time.getDayOfMonth(), 2).append(' ');
		digits(text, time.getHour(), 2).append(':');
		digits(text, time.getMinute(), 2).append(':');
		digits(text, time.getSecond(), 2).append('.');
		return digits(text, time.getNano() / 1000, 6).toString();
	}

	private static StringBuilder digits(StringBuilder text, int value, int width) {
		for (int limit = 10, i = 1; i < width; i++, limit *= 10) {
			if (value < limit) {
				text.append('0');
			}
		}
		return text.append(value);
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

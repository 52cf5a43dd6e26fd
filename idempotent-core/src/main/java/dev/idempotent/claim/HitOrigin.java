package dev.idempotent.claim;

import java.util.Locale;

/**
 * Where the duplicate behind an idempotent hit came from, told from the delivery source stored with the key's
 * claim ({@link ClaimResult.Hit#source()}) and the current delivery's ({@link ClaimRequest#source()}):
 * <ul>
 * <li>{@link #REDELIVERY}: the same topic, partition and offset. The consumer side read the very record again: a
 * restart or rebalance before the offset was committed, a lost offset commit, a reset or replay of the group's
 * offsets. Expected after every restart; says nothing about the upstream.</li>
 * <li>{@link #RESEND}: another record carried the same key (another offset, partition or topic). The upstream
 * sent the key again: a producer retry, a re-sent batch, a replayed export.</li>
 * <li>{@link #UNKNOWN}: one of the two sources is missing (a claim made without a Kafka record, a row written
 * before sources were stored, a store that does not read the source back).</li>
 * </ul>
 *
 * @since 0.1.0
 */
public enum HitOrigin {

	/** The same record delivered again to the consumer: same topic, partition and offset. */
	REDELIVERY,

	/** Another record with the same key: the upstream sent it again. */
	RESEND,

	/** Either source is unknown. */
	UNKNOWN;

	/**
	 * Tell where a hit's duplicate came from.
	 * @param request the current delivery's claim request, never {@code null}
	 * @param hit what its claim found, never {@code null}
	 * @return the origin, never {@code null}
	 */
	public static HitOrigin of(ClaimRequest request, ClaimResult.Hit hit) {
		if (request.source() == null || hit.source() == null) {
			return UNKNOWN;
		}
		return request.source().equals(hit.source()) ? REDELIVERY : RESEND;
	}

	/**
	 * The origin's name for logs and meter tags.
	 * @return {@code redelivery}, {@code resend} or {@code unknown}
	 */
	public String tagValue() {
		return name().toLowerCase(Locale.ROOT);
	}

}

package dev.idempotent.capture;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.idempotent.claim.ClaimRequest;
import org.jspecify.annotations.Nullable;

/**
 * The idempotency keys of the outputs of one delivery of a batch listener that have none of their own. A call of a
 * batch method cannot tell which record an output belongs to, and the same output is sent again when the batch falls
 * back to one record at a time: a key taken from a claim would differ between the two, and downstream could not tell
 * the second send from a new output. So the key is taken from the output itself and its delivery: the scope, the
 * claims of the batch's records (the same for the batch and its records one at a time; another delivery, such as the
 * redelivery of the records after a failing one, gives other keys, so that an output identical to an earlier
 * delivery's is never taken for it), the output's topic, serialized key and value, and how many identical outputs the
 * delivery sent before it in this attempt (identical outputs of different records stay apart, and the n-th of them
 * keeps its key whether the batch or the record sends it). Each attempt of the
 * batch, and the records sent one at a time after it, count from the start of the delivery again; a record retried in
 * its own transaction counts from where it started. Used by one consumer thread; not thread-safe.
 *
 * @since 0.2.0
 */
public final class BatchOutputKeys {

	private final String scope;

	/** What the records of the current delivery's batch have in common: a digest of their claims. */
	private String delivery = "";

	private Map<String, Integer> sent = new HashMap<>();

	private Map<String, Integer> mark = Map.of();

	/**
	 * Create the keys of one delivery.
	 * @param scope the listener's scope
	 */
	public BatchOutputKeys(String scope) {
		this.scope = scope;
	}

	/**
	 * Start an attempt of the whole batch, or of its records one at a time: count from the start of the delivery.
	 * @param claims the claims of the batch's records, the same for the batch and its records one at a time
	 */
	public void restart(List<ClaimRequest> claims) {
		this.delivery = digest(claims);
		this.sent = new HashMap<>();
		this.mark = Map.of();
	}

	/** Remember where the next record starts, before its first attempt. */
	public void mark() {
		this.mark = Map.copyOf(this.sent);
	}

	/** Start another attempt of the record marked last: count from where it started. */
	public void rewind() {
		this.sent = new HashMap<>(this.mark);
	}

	/** The key of the next output with this content. */
	byte[] next(String topic, byte @Nullable [] key, byte @Nullable [] value) {
		String content = digest(topic, key, value);
		int occurrence = this.sent.merge(content, 1, Integer::sum) - 1;
		String name = this.scope + '\u0000' + this.delivery + '\u0000' + content + '\u0000' + occurrence;
		return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString().getBytes(StandardCharsets.UTF_8);
	}

	private static String digest(String topic, byte @Nullable [] key, byte @Nullable [] value) {
		MessageDigest digest = sha256();
		update(digest, topic.getBytes(StandardCharsets.UTF_8));
		update(digest, key);
		update(digest, value);
		return HexFormat.of().formatHex(digest.digest());
	}

	/** The claims of a batch, whatever their order. */
	private static String digest(List<ClaimRequest> claims) {
		MessageDigest digest = sha256();
		claims.stream()
			.map((claim) -> claim.scope() + '\u0000' + claim.key())
			.sorted()
			.forEach((id) -> update(digest, id.getBytes(StandardCharsets.UTF_8)));
		return HexFormat.of().formatHex(digest.digest());
	}

	private static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

	/** A length (-1 for none) before the bytes: ("ab", "c") and ("a", "bc") differ. */
	private static void update(MessageDigest digest, byte @Nullable [] bytes) {
		digest.update(ByteBuffer.allocate(4).putInt((bytes != null) ? bytes.length : -1).array());
		if (bytes != null) {
			digest.update(bytes);
		}
	}

}

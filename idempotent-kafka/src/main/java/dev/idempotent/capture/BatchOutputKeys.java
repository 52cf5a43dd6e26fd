package dev.idempotent.capture;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * The idempotency keys of the outputs of one delivery of a batch listener that have none of their own. A call of a
 * batch method cannot tell which record an output belongs to, and the same output is sent again when the batch falls
 * back to one record at a time: a key taken from a claim would differ between the two, and downstream could not tell
 * the second send from a new output. So the key is taken from the output itself: its scope, topic, serialized key and
 * value, and how many identical outputs the delivery sent before it in this attempt (identical outputs of different
 * records stay apart, and the n-th of them keeps its key whether the batch or the record sends it). Each attempt of the
 * batch, and the records sent one at a time after it, count from the start of the delivery again; a record retried in
 * its own transaction counts from where it started. Used by one consumer thread; not thread-safe.
 *
 * @since 0.2.0
 */
public final class BatchOutputKeys {

	private final String scope;

	private Map<String, Integer> sent = new HashMap<>();

	private Map<String, Integer> mark = Map.of();

	/**
	 * Create the keys of one delivery.
	 * @param scope the listener's scope
	 */
	public BatchOutputKeys(String scope) {
		this.scope = scope;
	}

	/** Start an attempt of the whole batch, or the records one at a time: count from the start of the delivery. */
	public void restart() {
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
		String name = this.scope + '\u0000' + content + '\u0000' + occurrence;
		return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString().getBytes(StandardCharsets.UTF_8);
	}

	private static String digest(String topic, byte @Nullable [] key, byte @Nullable [] value) {
		try {
			MessageDigest digest = MessageDigest.getInstance("SHA-256");
			update(digest, topic.getBytes(StandardCharsets.UTF_8));
			update(digest, key);
			update(digest, value);
			return HexFormat.of().formatHex(digest.digest());
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

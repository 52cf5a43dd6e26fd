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
 * the second send from a new output. So the key is taken from the output itself: its scope, topic, serialized key
 * and value, and how many identical outputs the delivery sent before it in this attempt (identical outputs of
 * different records of a batch stay apart, and the n-th of them keeps its key whether the batch or the record sends
 * it). The key is the same in every delivery of the record (the batch may be cut differently when the records after
 * a failing one are delivered again, or after a crash), so downstream can drop every second send; and two records of
 * different deliveries that send byte-identical outputs send, as downstream sees it, one output: name the record in
 * what it sends. Each attempt of the
 * batch, and the records sent one at a time after it, count from the start of the delivery again; a record retried in
 * its own transaction counts from where it started. Used by one consumer thread; not thread-safe.
 *
 * @since 0.1.0
 */
public final class BatchOutputKeys {

	private final String scope;

	private Map<String, Integer> sent = new HashMap<>();

	private Map<String, Integer> mark = Map.of();

	/** The content keyed last, or {@code null}. */
	private @Nullable String last;

	/**
	 * Create the keys of one delivery.
	 * @param scope the listener's scope
	 */
	public BatchOutputKeys(String scope) {
		this.scope = scope;
	}

	/** Start an attempt of the whole batch, or of its records one at a time: count from the start of the delivery. */
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
		this.last = content;
		int occurrence = this.sent.merge(content, 1, Integer::sum) - 1;
		String name = this.scope + '\u0000' + content + '\u0000' + occurrence;
		return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString().getBytes(StandardCharsets.UTF_8);
	}

	private static String digest(String topic, byte @Nullable [] key, byte @Nullable [] value) {
		MessageDigest digest = sha256();
		update(digest, topic.getBytes(StandardCharsets.UTF_8));
		update(digest, key);
		update(digest, value);
		return HexFormat.of().formatHex(digest.digest());
	}

	/**
	 * Forget the output keyed last: the producer refused it at once, so it was not sent, and the next output with its
	 * content takes its key.
	 */
	void refused() {
		if (this.last != null) {
			this.sent.computeIfPresent(this.last, (content, count) -> (count > 1) ? count - 1 : null);
			this.last = null;
		}
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

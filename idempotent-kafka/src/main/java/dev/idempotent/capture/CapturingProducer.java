package dev.idempotent.capture;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.Future;

import dev.idempotent.output.OutputRejectedException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A producer that hands every record sent on a thread with an open {@link Capture} to it, with the bytes its
 * {@link CapturingSerializer}s produced and the future of the broker's acknowledgment. Everything else is passed to
 * the wrapped producer unchanged. The first record sent on a thread that expects a {@link PendingReply} (none is open
 * under a claim there) is spring-kafka's reply: it is sent with the reply's stored bytes. Thread-safe as the wrapped
 * producer is.
 * <p>The producer is a {@link Proxy} of kafka-clients' {@link Producer} interface, so that it implements the methods
 * of every supported kafka-clients version (3.9 and 4.x add and remove some), passing all but {@code send} on.
 */
final class CapturingProducer<K, V> implements InvocationHandler {

	private static final Logger logger = LoggerFactory.getLogger(CapturingProducer.class);

	private final Producer<K, V> delegate;

	private final String factory;

	private CapturingProducer(Producer<K, V> delegate, String factory) {
		this.delegate = delegate;
		this.factory = factory;
	}

	/**
	 * Wrap a producer.
	 * @param delegate the producer that sends
	 * @param factory the name of the producer factory bean that created it
	 * @param <K> the key type
	 * @param <V> the value type
	 * @return the capturing producer
	 */
	@SuppressWarnings("unchecked")
	static <K, V> Producer<K, V> wrap(Producer<K, V> delegate, String factory) {
		return (Producer<K, V>) Proxy.newProxyInstance(Producer.class.getClassLoader(), new Class<?>[] { Producer.class },
				new CapturingProducer<>(delegate, factory));
	}

	@Override
	@SuppressWarnings("unchecked")
	public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] arguments) throws Throwable {
		if (method.getName().equals("send") && arguments != null && arguments.length >= 1) {
			return send((ProducerRecord<K, V>) arguments[0], (arguments.length > 1) ? (Callback) arguments[1] : null);
		}
		if (method.getDeclaringClass() == Object.class) {
			// equals, hashCode and toString: the only methods of Object a proxy passes on
			return switch (method.getName()) {
				case "equals" -> arguments != null && proxy == arguments[0];
				case "hashCode" -> System.identityHashCode(proxy);
				default -> "CapturingProducer[" + this.delegate + "]";
			};
		}
		try {
			return method.invoke(this.delegate, arguments);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	private Future<RecordMetadata> send(ProducerRecord<K, V> record, @Nullable Callback callback) {
		Capture capture = Capture.current();
		if (SerializedSlot.replaying()) {
			return this.delegate.send(record, callback);
		}
		if (capture == null) {
			PendingReply reply = PendingReply.take(record);
			return (reply != null) ? sendReply(record, callback, reply) : this.delegate.send(record, callback);
		}
		SerializedSlot slot = SerializedSlot.open();
		try {
			capture.beforeSend(record, slot);
			Future<RecordMetadata> ack = this.delegate.send(record, callback);
			capture.sent(record, slot, ack, this.delegate, this.factory);
			return ack;
		}
		catch (OutputRejectedException ex) {
			throw capture.rejected(ex); // over idempotent.outputs.max-bytes: caught or not, the claim rolls back
		}
		finally {
			capture.afterSend(record, slot);
			slot.close();
		}
	}

	/** Send spring-kafka's reply with the stored bytes, and wait for it if the reply waits. */
	private Future<RecordMetadata> sendReply(ProducerRecord<K, V> record, @Nullable Callback callback,
			PendingReply reply) {
		reply.addStoredHeaders(record);
		try {
			Future<RecordMetadata> ack;
			try (SerializedSlot slot = SerializedSlot.replayValue(reply.reply().value())) {
				ack = this.delegate.send(record, callback);
			}
			if (reply.awaits()) {
				ProducerFlush.start(this.delegate); // the reply is awaited on its own: do not let it linger
			}
			reply.awaitSent(ack);
			return ack;
		}
		catch (RuntimeException ex) {
			// spring-kafka neither logs a failed reply nor fails the record for it: the listener's wrapper does
			logger.error("A @SendTo reply to " + record.topic() + " was not sent or not acknowledged; its request"
					+ " fails and is retried, and the retry (a hit) sends the reply stored with its claim.", ex);
			PendingReply.failed(ex);
			throw ex;
		}
	}

}

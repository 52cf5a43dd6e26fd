package dev.idempotent.kafka;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * Checks at startup what the {@link IdempotentListener} methods return. A hit returns {@code null} without calling
 * the method, so whatever Spring Kafka would have sent from the return value is not sent for a hit; a reply lost in
 * a crash after the database commit is never sent again. Until outputs are stored with the claim:
 * <ul>
 * <li>a method with {@code @SendTo} (on the method; for a {@code @KafkaHandler}, also on its class, where Spring
 * Kafka reads it) replies to every request, also to a {@code ReplyingKafkaTemplate} request through its
 * {@code kafka_replyTopic} header: refused ({@link ReplyMode#REFUSE}, the default) or one WARN
 * ({@code idempotent.replies=warn});</li>
 * <li>a method declared to return a {@code Message} (or a {@code Collection} of them) has it published through the
 * container's reply template on every delivery, also without {@code @SendTo}: the same;</li>
 * <li>any other method that returns a value gets one WARN (without {@code @SendTo} Spring Kafka sends nothing from
 * it, but whatever else reads the value gets {@code null} for a hit).</li>
 * </ul>
 *
 * @since 0.1.0
 */
public final class ListenerReplies implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(ListenerReplies.class);

	private final Supplier<ListenerMethods> methods;

	private final ReplyMode mode;

	/**
	 * Create the check.
	 * @param methods the resolved listener methods
	 * @param mode what to do with a method that replies
	 */
	public ListenerReplies(Supplier<ListenerMethods> methods, ReplyMode mode) {
		this.methods = methods;
		this.mode = mode;
	}

	/**
	 * Check every listener method.
	 * @throws IllegalStateException naming the method when it replies and the mode is {@link ReplyMode#REFUSE}
	 */
	@Override
	public void afterSingletonsInstantiated() {
		List<ListenerMethod> all = new ArrayList<>(this.methods.get().all());
		all.sort(Comparator.comparing(ListenerMethod::toString));
		for (ListenerMethod listener : all) {
			Method method = listener.method();
			String output = output(method);
			if (output != null) {
				String problem = "@IdempotentListener method " + listener + " " + output + ", but a hit does not"
						+ " call the method: a redelivered request that is a hit gets no reply, and a reply lost in a"
						+ " crash after the database commit is never sent again.";
				if (this.mode == ReplyMode.REFUSE) {
					throw new IllegalStateException(problem + " Remove @SendTo (return void) and send the reply from"
							+ " the method, or accept this with idempotent.replies=warn.");
				}
				logger.warn(problem + " Accepted by idempotent.replies=warn.");
			}
			else if (method.getReturnType() != void.class) {
				logger.warn("@IdempotentListener method " + listener + " returns a value; a hit returns null without"
						+ " calling the method, so whatever reads the value gets none for a hit. Return void if nothing"
						+ " reads it.");
			}
		}
	}

	/**
	 * What the container sends from the method's return value, or {@code null}: {@code @SendTo} replies; a declared
	 * {@code Message} (or {@code Collection<Message>}) return type is published through the reply template even
	 * without {@code @SendTo}, as Spring Kafka decides from the declared type.
	 */
	private static @Nullable String output(Method method) {
		if (sendsReplies(method)) {
			return "replies (@SendTo)";
		}
		if (KafkaUtils.returnTypeMessageOrCollectionOf(method)) {
			return "returns a Message, which Spring Kafka publishes (through the container's reply template)";
		}
		return null;
	}

	private static boolean sendsReplies(Method method) {
		if (method.getReturnType() == void.class) {
			return false; // Spring Kafka ignores @SendTo on a void method
		}
		return AnnotatedElementUtils.hasAnnotation(method, SendTo.class)
				|| (AnnotatedElementUtils.hasAnnotation(method, KafkaHandler.class)
						&& AnnotatedElementUtils.hasAnnotation(method.getDeclaringClass(), SendTo.class));
	}

}

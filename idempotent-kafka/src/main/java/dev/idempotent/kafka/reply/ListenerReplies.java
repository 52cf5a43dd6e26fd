package dev.idempotent.kafka.reply;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.idempotent.capture.ClaimOutputs;
import dev.idempotent.capture.Replies;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.ReplyMode;
import dev.idempotent.kafka.method.ListenerMethod;
import dev.idempotent.kafka.method.ListenerMethods;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.BeansException;
import org.springframework.beans.DirectFieldAccessor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.util.StringUtils;

/**
 * Checks at startup what the {@link IdempotentListener} methods return, and keeps how each replying one has its reply
 * stored with its claim. A hit does not call the method, so what spring-kafka would send from its return value must
 * come from the claim:
 * <ul>
 * <li>a single-record method with {@code @SendTo} (on the method; for a {@code @KafkaHandler}, also on its class,
 * where spring-kafka reads it) that returns a payload, whose outputs are captured and whose container factory's reply
 * template has a producer factory the starter captures on: its reply is stored with the claim, in the claim's
 * transaction, and every request of the key (the redelivery after a crash, a {@code ReplyingKafkaTemplate} retry) gets
 * that reply, addressed to it by spring-kafka ({@link ListenerReply});</li>
 * <li>any other replying method (a batch listener, whose reply is not one request's; a declared {@code Message},
 * {@code Iterable}, interface or abstract return type; outputs not captured) gets no reply
 * for a hit, and a reply lost in a crash after the database commit is never sent again: refused
 * ({@link ReplyMode#REFUSE}, the default) or one WARN ({@code idempotent.unstored-replies=warn}). So is a method declared to
 * return a {@code Message} without {@code @SendTo}, which spring-kafka publishes through the reply template;</li>
 * <li>any other method that returns a value gets one WARN (without {@code @SendTo} spring-kafka sends nothing from
 * it, but whatever else reads the value gets {@code null} for a hit).</li>
 * </ul>
 * Thread-safe once the singletons are instantiated.
 *
 * @since 0.1.0
 */
public final class ListenerReplies implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(ListenerReplies.class);

	private final Supplier<ListenerMethods> methods;

	private final ReplyMode mode;

	/** In shadow mode every request calls its method, whose reply spring-kafka sends; none is stored. */
	private final boolean shadow;

	private final BeanFactory beanFactory;

	private final Supplier<@Nullable ClaimOutputs> outputs;

	private final Supplier<@Nullable Replies> replies;

	private final Map<Method, ListenerReply> stored = new ConcurrentHashMap<>();

	/**
	 * Create the check.
	 * @param methods the resolved listener methods
	 * @param mode what to do with a method whose reply cannot be stored with its claim
	 * @param shadow whether shadow mode is on: no hit skips its method, every reply is sent by spring-kafka from the
	 * method's return value, none is stored, and what {@code mode} would refuse is logged at WARN instead, to be fixed
	 * before shadow mode is turned off
	 * @param beanFactory where the listeners' container factories are
	 * @param outputs the outputs of claims, or a supplier of {@code null} when outputs are not captured at all
	 * @param replies serializes replies, or a supplier of {@code null} when outputs are not captured at all
	 */
	public ListenerReplies(Supplier<ListenerMethods> methods, ReplyMode mode, boolean shadow, BeanFactory beanFactory,
			Supplier<@Nullable ClaimOutputs> outputs, Supplier<@Nullable Replies> replies) {
		this.methods = methods;
		this.mode = mode;
		this.shadow = shadow;
		this.beanFactory = beanFactory;
		this.outputs = outputs;
		this.replies = replies;
	}

	/**
	 * Check every listener method, and prepare the replies of those whose replies are stored.
	 * @throws IllegalStateException naming the method when its reply cannot be stored and the mode is
	 * {@link ReplyMode#REFUSE}
	 */
	@Override
	public void afterSingletonsInstantiated() {
		List<ListenerMethod> all = new ArrayList<>(this.methods.get().all());
		all.sort(Comparator.comparing(ListenerMethod::toString));
		for (ListenerMethod listener : all) {
			Method method = listener.method();
			String output = output(method);
			if (output == null) {
				if (method.getReturnType() != void.class) {
					logger.warn("@IdempotentListener method " + listener + " returns a value; a hit returns null"
							+ " without calling the method, so whatever reads the value gets none for a hit. Return"
							+ " void if nothing reads it.");
				}
				continue;
			}
			String problem = sendsReplies(method) ? storeProblem(listener) : "it is declared to return a Message";
			if (problem == null && this.shadow) {
				logger.info("@IdempotentListener method {} replies (@SendTo): in shadow mode every request calls it and"
						+ " spring-kafka sends its reply; once shadow mode is off its reply is stored with its claim",
						listener);
				continue;
			}
			if (problem == null) {
				this.stored.put(method, reply(listener));
				logger.info("@IdempotentListener method {} replies (@SendTo): its reply is stored with its claim, and"
						+ " a request that is a hit gets the stored reply", listener);
				continue;
			}
			String message = "@IdempotentListener method " + listener + " " + output + ", but its reply cannot be"
					+ " stored with its claim (" + problem + "): a hit does not call the method, so a redelivered"
					+ " request that is a hit gets no reply, and a reply lost in a crash after the database commit is"
					+ " never sent again.";
			if (this.mode == ReplyMode.REFUSE && this.shadow) {
				logger.warn(message + " Shadow mode starts it; it is refused at startup once idempotent.shadow is off:"
						+ " fix it before then, or accept it with idempotent.unstored-replies=warn.");
				continue;
			}
			if (this.mode == ReplyMode.REFUSE) {
				throw new IllegalStateException(message + " Return a payload from a single-record listener (or send"
						+ " the reply from the method with a KafkaTemplate), or accept this with"
						+ " idempotent.unstored-replies=warn.");
			}
			logger.warn(message + " Accepted by idempotent.unstored-replies=warn.");
		}
	}

	/**
	 * Return how a listener's reply is stored with its claim.
	 * @param listener a listener method
	 * @return its reply, or {@code null} if it does not reply or its reply is not stored
	 */
	public @Nullable ListenerReply of(ListenerMethod listener) {
		return this.stored.get(listener.method());
	}

	/** Why a {@code @SendTo} method's reply cannot be stored with its claim, or {@code null} if it can. */
	private @Nullable String storeProblem(ListenerMethod listener) {
		Method method = listener.method();
		ClaimOutputs outputs = this.outputs.get();
		if (outputs == null || !outputs.capturesOutsideShadowMode(listener.capturesOutputs())) {
			return "its outputs are not captured";
		}
		if (listener.endpoint().batch()) {
			return "it is a batch listener, whose reply answers no single request";
		}
		if (listener.endpoint().acknowledgmentIndex() >= 0) {
			return "it takes an Acknowledgment, which may commit the offset before spring-kafka sent the reply";
		}
		String expression = sendToValue(method);
		if (expression != null && expression.startsWith("!{") && expression.contains("result")) {
			return "its @SendTo expression reads the result, which a hit does not compute";
		}
		Class<?> type = method.getReturnType();
		if (KafkaUtils.returnTypeMessageOrCollectionOf(method)) {
			return "it returns a Message, whose headers are not stored; return the payload";
		}
		if (Iterable.class.isAssignableFrom(type)) {
			return "it returns an Iterable, which spring-kafka may send as several replies";
		}
		String placeholder = ListenerReply.placeholderProblem(type);
		if (placeholder != null) {
			return placeholder;
		}
		KafkaTemplate<?, ?> template = replyTemplate(listener);
		if (template == null) {
			return "its container factory '" + listener.endpoint().containerFactory() + "' has no reply template";
		}
		Replies replies = this.replies.get();
		if (replies == null || !replies.supports(template)) {
			return "its reply template's producer factory is not a DefaultKafkaProducerFactory bean the starter"
					+ " captures on";
		}
		return null;
	}

	private ListenerReply reply(ListenerMethod listener) {
		KafkaTemplate<?, ?> template = replyTemplate(listener);
		Replies replies = this.replies.get();
		if (template == null || replies == null) {
			throw new IllegalStateException("checked by storeProblem");
		}
		return new ListenerReply(replies, template, destination(listener.method()), listener.method().getReturnType());
	}

	/** The reply template of the listener's container factory (spring-kafka gives it no getter). */
	private @Nullable KafkaTemplate<?, ?> replyTemplate(ListenerMethod listener) {
		try {
			Object factory = this.beanFactory.getBean(listener.endpoint().containerFactory());
			Object template = new DirectFieldAccessor(factory).getPropertyValue("replyTemplate");
			return (template instanceof KafkaTemplate<?, ?> kafkaTemplate) ? kafkaTemplate : null;
		}
		catch (BeansException ex) {
			return null;
		}
	}

	/** The {@code @SendTo} value if it has one (on the method, or for a handler on its class), else {@code null}. */
	private static @Nullable String sendToValue(Method method) {
		SendTo sendTo = AnnotatedElementUtils.findMergedAnnotation(method, SendTo.class);
		if (sendTo == null) {
			sendTo = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), SendTo.class);
		}
		if (sendTo == null || sendTo.value().length != 1 || !StringUtils.hasText(sendTo.value()[0])) {
			return null;
		}
		return sendTo.value()[0];
	}

	/** Where spring-kafka sends the method's replies, as its {@code @SendTo} says. */
	private ListenerReply.Destination destination(Method method) {
		String topic = sendToValue(method);
		if (topic == null) {
			return ListenerReply.Destination.REQUEST_HEADER;
		}
		if (this.beanFactory instanceof ConfigurableBeanFactory configurable) {
			// resolved once at startup, as spring-kafka resolves the @SendTo value
			topic = configurable.resolveEmbeddedValue(topic);
			BeanExpressionResolver resolver = configurable.getBeanExpressionResolver();
			if (topic != null && resolver != null) {
				Object evaluated = resolver.evaluate(topic, new BeanExpressionContext(configurable, null));
				topic = (evaluated instanceof String text) ? text : null;
			}
		}
		// spring-kafka evaluates a value that holds "!{" for each reply
		return (topic == null || topic.contains("!{")) ? ListenerReply.Destination.EXPRESSION
				: new ListenerReply.Destination(topic, false);
	}

	/**
	 * What the container sends from the method's return value, or {@code null}: {@code @SendTo} replies; a declared
	 * {@code Message} (or {@code Collection<Message>}) return type is published through the reply template even
	 * without {@code @SendTo}, as spring-kafka decides from the declared type.
	 */
	private static @Nullable String output(Method method) {
		if (sendsReplies(method)) {
			return "replies (@SendTo)";
		}
		if (KafkaUtils.returnTypeMessageOrCollectionOf(method)) {
			return "returns a Message, which spring-kafka publishes (through the container's reply template)";
		}
		return null;
	}

	private static boolean sendsReplies(Method method) {
		if (method.getReturnType() == void.class) {
			return false; // spring-kafka ignores @SendTo on a void method
		}
		return AnnotatedElementUtils.hasAnnotation(method, SendTo.class)
				|| (AnnotatedElementUtils.hasAnnotation(method, KafkaHandler.class)
						&& AnnotatedElementUtils.hasAnnotation(method.getDeclaringClass(), SendTo.class));
	}

}

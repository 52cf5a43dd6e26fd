package dev.idempotent.kafka.method;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;

import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.key.InvalidKeyReason;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.kafka.listener.adapter.ConsumerRecordMetadata;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.messaging.Message;
import org.springframework.util.ClassUtils;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.Payload;

/**
 * The key is a SpEL expression over the delivery, parsed once when the listener bean is created. Any failure of
 * its evaluation (a SpEL error, or a {@code RuntimeException} thrown by a method the expression calls) is
 * {@link InvalidKeyReason#EXPRESSION_FAILED} for that record. In a batch, {@code #payload} and every per-record
 * list argument (by its parameter name) are the record's own element.
 */
final class ExpressionKeySource implements KeySource {

	private static final SpelExpressionParser parser = new SpelExpressionParser();

	private final String text;

	private final Expression expression;

	private final @Nullable String[] parameterNames;

	private final int payloadIndex;

	private final @Nullable Class<?> payloadType;

	private ExpressionKeySource(String text, Expression expression, @Nullable String[] parameterNames,
			int payloadIndex, @Nullable Class<?> payloadType) {
		this.text = text;
		this.expression = expression;
		this.parameterNames = parameterNames;
		this.payloadIndex = payloadIndex;
		this.payloadType = payloadType;
	}

	/**
	 * Parse the key expression of a listener method.
	 * @throws IllegalArgumentException if the expression does not parse
	 */
	static ExpressionKeySource of(String text, Method method) {
		Expression expression;
		try {
			expression = parser.parseExpression(text);
		}
		catch (ParseException ex) {
			throw new IllegalArgumentException("@IdempotentListener key expression '" + text + "' on "
					+ method.toGenericString() + " does not parse: " + ex.getMessage(), ex);
		}
		String[] names = new DefaultParameterNameDiscoverer().getParameterNames(method);
		int payloadIndex = payloadIndex(method);
		return new ExpressionKeySource(text, expression,
				(names != null) ? names : new String[method.getParameterCount()], payloadIndex,
				(payloadIndex >= 0) ? ClassUtils.resolvePrimitiveIfNecessary(method.getParameterTypes()[payloadIndex])
						: null);
	}

	@Override
	public @Nullable Object rawKey(ConsumerRecord<?, ?> record, @Nullable Object[] arguments) {
		StandardEvaluationContext context = new StandardEvaluationContext();
		context.setVariable("record", record);
		context.setVariable("key", record.key());
		context.setVariable("topic", record.topic());
		context.setVariable("headers", new HeadersView(record.headers()));
		context.setVariable("payload", payload(record, arguments));
		for (int i = 0; i < arguments.length && i < this.parameterNames.length; i++) {
			if (this.parameterNames[i] != null) {
				context.setVariable(this.parameterNames[i], arguments[i]);
			}
		}
		try {
			return this.expression.getValue(context);
		}
		catch (InvalidIdempotencyKeyException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			// SpEL rethrows a RuntimeException of a called method as it is (String.substring on a short value,
			// UUID.fromString on a malformed one), not as an EvaluationException: it is the same bad input
			throw new InvalidIdempotencyKeyException(InvalidKeyReason.EXPRESSION_FAILED, "Key expression '"
					+ this.text + "' failed for " + record.topic() + "-" + record.partition() + "@" + record.offset()
					+ ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * The delivered arguments with each {@code ConsumerRecord} swapped for {@code polled}, and the payload for its
	 * value when that value is of the payload parameter's type already; other arguments (headers) stay those of the
	 * delivered record.
	 */
	@Override
	public @Nullable Object @Nullable [] argumentsOf(ConsumerRecord<?, ?> polled, @Nullable Object[] delivered) {
		@Nullable Object[] arguments = delivered.clone();
		for (int i = 0; i < arguments.length; i++) {
			if (arguments[i] instanceof ConsumerRecord<?, ?>) {
				arguments[i] = polled;
			}
		}
		if (this.payloadIndex < 0 || this.payloadIndex >= arguments.length
				|| arguments[this.payloadIndex] instanceof ConsumerRecord<?, ?>) {
			return arguments;
		}
		Object value = polled.value();
		if (value == null || this.payloadType == null || !this.payloadType.isInstance(value)
				|| arguments[this.payloadIndex] instanceof Message<?>) {
			return null;
		}
		arguments[this.payloadIndex] = value;
		return arguments;
	}

	@Override
	public String description() {
		return "expression '" + this.text + "'";
	}

	private @Nullable Object payload(ConsumerRecord<?, ?> record, @Nullable Object[] arguments) {
		if (this.payloadIndex < 0 || this.payloadIndex >= arguments.length) {
			return record.value();
		}
		Object argument = arguments[this.payloadIndex];
		if (argument instanceof ConsumerRecord<?, ?> element) {
			// the record's element of a batch of records: its payload is its value, as for a single record
			return element.value();
		}
		return (argument instanceof Message<?> message) ? message.getPayload() : argument;
	}

	/**
	 * The index of the payload parameter: the one annotated {@code @Payload}, else the first one that is
	 * neither a header nor a framework argument; -1 if there is none.
	 */
	private static int payloadIndex(Method method) {
		Parameter[] parameters = method.getParameters();
		for (int i = 0; i < parameters.length; i++) {
			if (parameters[i].isAnnotationPresent(Payload.class)) {
				return i;
			}
		}
		for (int i = 0; i < parameters.length; i++) {
			if (!isFrameworkArgument(parameters[i])) {
				return i;
			}
		}
		return -1;
	}

	private static boolean isFrameworkArgument(Parameter parameter) {
		Class<?> type = parameter.getType();
		return parameter.isAnnotationPresent(Header.class) || parameter.isAnnotationPresent(Headers.class)
				|| ConsumerRecord.class.isAssignableFrom(type) || Acknowledgment.class.isAssignableFrom(type)
				|| Consumer.class.isAssignableFrom(type) || ConsumerRecordMetadata.class.isAssignableFrom(type);
	}

}

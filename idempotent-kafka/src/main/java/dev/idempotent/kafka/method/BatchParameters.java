package dev.idempotent.kafka.method;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedParameterizedType;
import java.lang.reflect.AnnotatedType;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.util.StringUtils;

/**
 * The parameters of a batch listener method that hold one element per record of the batch, read once from the
 * method's signature: the batch itself (a {@code List} of payloads, of {@code Message}s or of
 * {@code ConsumerRecord}s, or a {@code ConsumerRecords}) and every {@code @Header} list of a header spring-kafka
 * sets per record ({@link KafkaHeaders#RECEIVED_KEY}, {@link KafkaHeaders#OFFSET}, ...). Every one of them is
 * cut down to the same positions before the method sees them, so that the lists keep lining up; every other
 * argument ({@code Consumer}, {@code Acknowledgment}, single values) is passed unchanged.
 * <p>Shapes whose elements cannot be matched to their records are named by {@link #problem()}: a
 * {@code @Headers} map or a {@code Message} of the whole batch (their list-valued headers describe every record,
 * hits included), and a {@code @Header} list of a header that is not one of spring-kafka's per-record ones.
 * Immutable and thread-safe.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class BatchParameters {

	/** The headers a batch message carries as one list element per record (spring-kafka 4.0). */
	static final Set<String> PER_RECORD_HEADERS = Set.of(KafkaHeaders.RECEIVED_KEY, KafkaHeaders.RECEIVED_TOPIC,
			KafkaHeaders.RECEIVED_PARTITION, KafkaHeaders.OFFSET, KafkaHeaders.RECEIVED_TIMESTAMP,
			KafkaHeaders.TIMESTAMP_TYPE, KafkaHeaders.BATCH_CONVERTED_HEADERS, KafkaHeaders.NATIVE_HEADERS,
			KafkaHeaders.CONVERSION_FAILURES, KafkaHeaders.RAW_DATA);

	/** What the batch parameter holds. */
	enum Kind {

		/** No batch parameter. */
		NONE,

		/** A {@code List} of payloads or of {@code Message}s, converted by spring-kafka. */
		PAYLOADS,

		/** A {@code List} of {@code ConsumerRecord}s. */
		RECORDS,

		/** A {@code ConsumerRecords}. */
		CONSUMER_RECORDS

	}

	private static final BatchParameters NONE = new BatchParameters(-1, Kind.NONE, new int[0], false, null);

	private final int batchIndex;

	private final Kind kind;

	private final int[] headerIndexes;

	private final boolean nullableElements;

	private final @Nullable String problem;

	private BatchParameters(int batchIndex, Kind kind, int[] headerIndexes, boolean nullableElements,
			@Nullable String problem) {
		this.batchIndex = batchIndex;
		this.kind = kind;
		this.headerIndexes = headerIndexes;
		this.nullableElements = nullableElements;
		this.problem = problem;
	}

	/**
	 * Read the per-record parameters of a method.
	 * @param method the listener method
	 * @return its batch parameters; {@link Kind#NONE} if it takes no list and no {@code ConsumerRecords}
	 */
	static BatchParameters of(Method method) {
		Parameter[] parameters = method.getParameters();
		int batchIndex = batchIndex(parameters);
		if (batchIndex < 0) {
			return NONE;
		}
		List<Integer> headers = new ArrayList<>();
		String problem = null;
		for (int i = 0; i < parameters.length; i++) {
			Parameter parameter = parameters[i];
			String header = headerName(parameter);
			if (header != null && List.class.isAssignableFrom(parameter.getType())) {
				if (PER_RECORD_HEADERS.contains(header)) {
					headers.add(i);
				}
				else if (problem == null) {
					problem = "its @Header(\"" + header + "\") List parameter is not one of spring-kafka's per-record"
							+ " batch headers, so it cannot be matched to the records; read the header from"
							+ " @Header(KafkaHeaders.BATCH_CONVERTED_HEADERS) List<Map<String, Object>> or take"
							+ " List<ConsumerRecord<K, V>>";
				}
			}
			else if (problem == null && (parameter.isAnnotationPresent(Headers.class)
					|| (i != batchIndex && Message.class.isAssignableFrom(parameter.getType())))) {
				problem = "its " + parameter.getType().getSimpleName() + " parameter carries the headers of the whole"
						+ " batch, hits included, which cannot be cut down to the claimed records; take @Header lists"
						+ " (KafkaHeaders.RECEIVED_KEY, OFFSET, BATCH_CONVERTED_HEADERS, ...) or List<ConsumerRecord<K, V>>";
			}
			else if (problem == null && i != batchIndex && header == null
					&& List.class.isAssignableFrom(parameter.getType())) {
				problem = "it takes more than one List that is not a @Header list, so which one is the batch is"
						+ " ambiguous; mark the batch @Payload and the others @Header";
			}
		}
		Kind kind = kind(parameters[batchIndex]);
		boolean nullable = kind == Kind.PAYLOADS && elementIsNullable(method.getAnnotatedParameterTypes()[batchIndex]);
		return new BatchParameters(batchIndex, kind, headers.stream().mapToInt(Integer::intValue).toArray(), nullable,
				problem);
	}

	/**
	 * Return the index of the batch parameter.
	 * @return the index, or -1 if there is none
	 */
	public int batchIndex() {
		return this.batchIndex;
	}

	/**
	 * Return what the batch parameter holds.
	 * @return the kind
	 */
	Kind kind() {
		return this.kind;
	}

	/**
	 * Tell whether the method accepts {@code null} elements in its list of payloads: the element type is annotated
	 * {@code @Nullable} ({@code List<@Nullable Order>}).
	 * @return whether a {@code null} payload (a tombstone, or a record that could not be converted) is passed on
	 */
	public boolean nullableElements() {
		return this.nullableElements;
	}

	/**
	 * Return why the method's batch parameters cannot be matched to their records.
	 * @return the reason (the rest of a sentence that names the method), or {@code null} if they can
	 */
	public @Nullable String problem() {
		return this.problem;
	}

	/**
	 * Return the records of a delivery when the batch parameter holds them.
	 * @param arguments the method's arguments
	 * @return the records, in the order of the batch, or {@code null} for a list of payloads
	 */
	public @Nullable List<ConsumerRecord<?, ?>> records(@Nullable Object[] arguments) {
		Object batch = arguments[this.batchIndex];
		if (this.kind == Kind.CONSUMER_RECORDS && batch instanceof ConsumerRecords<?, ?> records) {
			List<ConsumerRecord<?, ?>> list = new ArrayList<>(records.count());
			records.forEach(list::add);
			return list;
		}
		if (this.kind == Kind.RECORDS && batch instanceof List<?> list
				&& list.stream().allMatch(ConsumerRecord.class::isInstance)) {
			return list.stream().<ConsumerRecord<?, ?>>map(ConsumerRecord.class::cast).toList();
		}
		return null;
	}

	/**
	 * Return the elements of the batch parameter, one per record; {@code null} elements are kept.
	 * @param arguments the method's arguments
	 * @return a copy of the batch's elements (records, for {@code ConsumerRecords})
	 */
	public List<@Nullable Object> elements(@Nullable Object[] arguments) {
		Object batch = arguments[this.batchIndex];
		if (batch instanceof ConsumerRecords<?, ?> records) {
			List<@Nullable Object> list = new ArrayList<>(records.count());
			records.forEach(list::add);
			return list;
		}
		return (batch instanceof List<?> list) ? new ArrayList<>(list) : new ArrayList<>();
	}

	/**
	 * Tell why the per-record lists cannot give the element at a position.
	 * @param arguments the method's arguments
	 * @param position the record's position in the batch
	 * @return the reason, or {@code null} if every per-record list has an element there
	 */
	public @Nullable String missingElement(@Nullable Object[] arguments, int position) {
		for (int index : this.headerIndexes) {
			if (arguments[index] instanceof List<?> list && list.size() <= position) {
				return "the @Header list of parameter " + index + " has " + list.size() + " elements, none for record "
						+ position + " of the batch";
			}
		}
		return null;
	}

	/**
	 * Return the arguments of one record's key evaluation: every per-record list replaced by the record's element.
	 * @param arguments the method's arguments
	 * @param position the record's position in the batch
	 * @param element the record's element of the batch parameter
	 * @return a new array
	 */
	public @Nullable Object[] elementArguments(@Nullable Object[] arguments, int position, @Nullable Object element) {
		@Nullable Object[] copy = arguments.clone();
		copy[this.batchIndex] = element;
		for (int index : this.headerIndexes) {
			if (copy[index] instanceof List<?> list && position < list.size()) {
				copy[index] = list.get(position);
			}
		}
		return copy;
	}

	/**
	 * Return the arguments of a call with the records at some positions only: every per-record argument cut down
	 * to those positions, in their order; every other argument unchanged.
	 * @param arguments the method's arguments for the whole batch
	 * @param elements the batch parameter's elements, as returned by {@link #elements}
	 * @param positions positions in the batch, ascending
	 * @return a new array
	 */
	public @Nullable Object[] select(@Nullable Object[] arguments, List<@Nullable Object> elements, List<Integer> positions) {
		@Nullable Object[] copy = arguments.clone();
		List<@Nullable Object> batch = pick(elements, positions);
		copy[this.batchIndex] = (this.kind == Kind.CONSUMER_RECORDS)
				? consumerRecords(batch, (ConsumerRecords<?, ?>) arguments[this.batchIndex]) : batch;
		for (int index : this.headerIndexes) {
			if (copy[index] instanceof List<?> list) {
				copy[index] = pick(list, positions);
			}
		}
		return copy;
	}

	private static List<@Nullable Object> pick(List<?> list, List<Integer> positions) {
		List<@Nullable Object> picked = new ArrayList<>(positions.size());
		for (int position : positions) {
			if (position < list.size()) {
				picked.add(list.get(position));
			}
		}
		return picked;
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static ConsumerRecords<?, ?> consumerRecords(List<@Nullable Object> records,
			@Nullable ConsumerRecords<?, ?> original) {
		Map<TopicPartition, List<ConsumerRecord>> byPartition = new LinkedHashMap<>();
		for (Object record : records) {
			ConsumerRecord<?, ?> consumerRecord = (ConsumerRecord<?, ?>) record;
			byPartition.computeIfAbsent(new TopicPartition(consumerRecord.topic(), consumerRecord.partition()),
					(partition) -> new ArrayList<>())
				.add(consumerRecord);
		}
		return NextOffsets.consumerRecords(byPartition, original);
	}

	/**
	 * The batch: the {@code @Payload} parameter, else the {@code ConsumerRecords} one, else the first
	 * {@code List} that is not a header; -1 if none.
	 */
	private static int batchIndex(Parameter[] parameters) {
		for (int i = 0; i < parameters.length; i++) {
			if (parameters[i].isAnnotationPresent(Payload.class) && isBatchType(parameters[i].getType())) {
				return i;
			}
		}
		for (int i = 0; i < parameters.length; i++) {
			if (ConsumerRecords.class.isAssignableFrom(parameters[i].getType())) {
				return i;
			}
		}
		for (int i = 0; i < parameters.length; i++) {
			if (List.class.isAssignableFrom(parameters[i].getType()) && headerName(parameters[i]) == null
					&& !parameters[i].isAnnotationPresent(Headers.class)) {
				return i;
			}
		}
		return -1;
	}

	private static boolean isBatchType(Class<?> type) {
		return List.class.isAssignableFrom(type) || ConsumerRecords.class.isAssignableFrom(type);
	}

	private static Kind kind(Parameter parameter) {
		if (ConsumerRecords.class.isAssignableFrom(parameter.getType())) {
			return Kind.CONSUMER_RECORDS;
		}
		Type type = parameter.getParameterizedType();
		if (type instanceof ParameterizedType parameterized) {
			Type element = parameterized.getActualTypeArguments()[0];
			if (element == ConsumerRecord.class
					|| (element instanceof ParameterizedType p && p.getRawType() == ConsumerRecord.class)) {
				return Kind.RECORDS;
			}
		}
		return Kind.PAYLOADS;
	}

	private static @Nullable String headerName(Parameter parameter) {
		Header header = parameter.getAnnotation(Header.class);
		if (header == null) {
			return null;
		}
		return StringUtils.hasText(header.name()) ? header.name() : header.value();
	}

	private static boolean elementIsNullable(AnnotatedType type) {
		if (type instanceof AnnotatedParameterizedType parameterized
				&& parameterized.getAnnotatedActualTypeArguments().length == 1) {
			for (Annotation annotation : parameterized.getAnnotatedActualTypeArguments()[0].getAnnotations()) {
				if (annotation.annotationType().getSimpleName().equals("Nullable")) {
					return true;
				}
			}
		}
		return false;
	}

}

package dev.idempotent.aot;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * What the library reads at run time that a native image must be told about:
 * <ul>
 * <li>the DDL files shipped in the core jar ({@value #SCHEMA_PATTERN}), read by the schema initializer and quoted by
 * the schema check;</li>
 * <li>PgJDBC's {@code BaseConnection.getTransactionState()}, called reflectively to tell an aborted PostgreSQL
 * transaction (only when the driver is present);</li>
 * <li>the public methods of what a key expression sees: {@code #record} (a {@code ConsumerRecord}) and
 * {@code #headers};</li>
 * <li>the constructor of {@code PolledRecords}, the consumer interceptor the Kafka client creates by reflection when
 * the fast path is on;</li>
 * <li>the fields of spring-kafka types that have no getter for what the starter checks: the interceptors of a
 * container factory and a container, the handlers inside the composite error handlers.</li>
 * </ul>
 * The application's own listener beans (their {@code @IdempotentListener} methods and payload types) are covered by
 * {@link IdempotentListenerAotProcessor}. Registered through {@code META-INF/spring/aot.factories}.
 *
 * @since 0.1.0
 */
public class IdempotentRuntimeHints implements RuntimeHintsRegistrar {

	/** The DDL files inside the core jar. */
	public static final String SCHEMA_PATTERN = "dev/idempotent/jdbc/schema/schema-*.sql";

	private static final TypeReference PGJDBC_CONNECTION = TypeReference.of("org.postgresql.core.BaseConnection");

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCHEMA_PATTERN);
		hints.reflection()
			.registerType(PGJDBC_CONNECTION, (type) -> type.onReachableType(PGJDBC_CONNECTION)
				.withMethod("getTransactionState", List.of(), ExecutableMode.INVOKE));
		hints.reflection()
			.registerType(TypeReference.of("org.apache.kafka.clients.consumer.ConsumerRecord"),
					MemberCategory.INVOKE_PUBLIC_METHODS)
			.registerType(TypeReference.of("dev.idempotent.kafka.method.HeadersView"),
					MemberCategory.INVOKE_PUBLIC_METHODS)
			.registerType(TypeReference.of("dev.idempotent.kafka.support.PolledRecords"),
					MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS)
			// ConsumerRecords with the poll's next offsets, where kafka-clients has them (4.x; see BatchParameters)
			.registerType(TypeReference.of("org.apache.kafka.clients.consumer.ConsumerRecords"),
					MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS, MemberCategory.INVOKE_PUBLIC_METHODS)
			// the fields spring-kafka 3.3 has no public getter for (see ListenerInterceptors)
			.registerType(TypeReference.of("org.springframework.kafka.config.AbstractKafkaListenerContainerFactory"),
					MemberCategory.DECLARED_FIELDS)
			.registerType(TypeReference.of("org.springframework.kafka.listener.AbstractMessageListenerContainer"),
					MemberCategory.DECLARED_FIELDS)
			// the handlers inside spring-kafka's composite error handlers (see GroupCommitInstaller)
			.registerType(TypeReference.of("org.springframework.kafka.listener.CommonMixedErrorHandler"),
					MemberCategory.DECLARED_FIELDS)
			.registerType(TypeReference.of("org.springframework.kafka.listener.CommonDelegatingErrorHandler"),
					MemberCategory.DECLARED_FIELDS);
		// the producer that captures outputs (CapturingProducer)
		hints.proxies().registerJdkProxy(TypeReference.of("org.apache.kafka.clients.producer.Producer"));
	}

}

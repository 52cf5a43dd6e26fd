package dev.idempotent.aot;

import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.postgresql.core.BaseConnection;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.aot.BeanRegistrationCode;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * The runtime hints a native image of an application with the starter needs, checked with
 * {@link RuntimeHintsPredicates} on hints registered the way Spring AOT does: from {@code aot.factories}.
 */
class IdempotentRuntimeHintsTest {

	@Test
	void theRegistrarIsFoundThroughAotFactoriesAndCoversEveryShippedDdlFile() {
		RuntimeHints hints = new RuntimeHints();
		SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints, getClass().getClassLoader()));

		for (SqlDialect dialect : SqlDialect.values()) {
			assertThat(RuntimeHintsPredicates.resource().forResource(dialect.schemaLocation())).as(dialect.id())
				.accepts(hints);
			assertThat(RuntimeHintsPredicates.resource().forResource(dialect.archiveSchemaLocation())).as(dialect.id())
				.accepts(hints);
			assertThat(getClass().getClassLoader().getResource(dialect.schemaLocation())).as(dialect.schemaLocation())
				.isNotNull();
		}
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/idempotent/jdbc/other.txt")).rejects(hints);
	}

	@Test
	void reflectionTheLibraryUsesIsRegistered() {
		RuntimeHints hints = new RuntimeHints();
		new IdempotentRuntimeHints().registerHints(hints, getClass().getClassLoader());

		assertThat(RuntimeHintsPredicates.reflection().onMethod(BaseConnection.class, "getTransactionState").invoke())
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(ConsumerRecord.class)
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(TypeReference.of("dev.idempotent.kafka.method.HeadersView"))
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(dev.idempotent.kafka.support.PolledRecords.class)
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(org.apache.kafka.clients.producer.Producer.class))
			.as("the producer that captures outputs").accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(org.springframework.kafka.config.AbstractKafkaListenerContainerFactory.class)
			.withMemberCategory(MemberCategory.DECLARED_FIELDS)).as("its interceptors, read from their fields").accepts(hints);
	}

	@Test
	void aListenerBeansAnnotatedMethodsAndPayloadTypesAreRegistered() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("ledgerListener", new RootBeanDefinition(LedgerListener.class));
		beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(Plain.class));
		BeanRegistrationAotProcessor processor = AotServices.factories(getClass().getClassLoader())
			.load(BeanRegistrationAotProcessor.class)
			.stream()
			.filter(IdempotentListenerAotProcessor.class::isInstance)
			.findFirst()
			.orElseThrow();
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(getClass())), new InMemoryGeneratedFiles());

		BeanRegistrationAotContribution contribution = processor
			.processAheadOfTime(RegisteredBean.of(beanFactory, "ledgerListener"));
		contribution.applyTo(generation, mock(BeanRegistrationCode.class));

		RuntimeHints hints = generation.getRuntimeHints();
		assertThat(RuntimeHintsPredicates.reflection().onMethod(LedgerListener.class, "onPaid").invoke()).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(Paid.class)
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethod(LedgerListener.class, "helper").invoke()).rejects(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(String.class)).rejects(hints);
		assertThat(processor.processAheadOfTime(RegisteredBean.of(beanFactory, "plain"))).isNull();
	}

	record Paid(String orderId, long cents) {
	}

	static class LedgerListener {

		@IdempotentListener(key = "#payload.orderId")
		public void onPaid(Paid paid, String note) {
		}

		public void helper(Paid paid) {
		}

	}

	static class Plain {

		public void onPaid(Paid paid) {
		}

	}

}

package dev.idempotent.kafka.group;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.kafka.listener.DeliveryOutputs;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;

class GroupMemberTest {

	/**
	 * A group runs a member again when the group is cut before a failing record or processed record by record: each
	 * run must go through the advice inside the idempotent one (a {@code @Transactional}, an application's aspect), as
	 * the first run did.
	 */
	@Test
	void everyRunGoesThroughTheAdviceInsideTheIdempotentOne() throws Throwable {
		List<MethodInvocation> collected = new ArrayList<>();
		AtomicInteger inner = new AtomicInteger();
		AtomicInteger calls = new AtomicInteger();
		ProxyFactory factory = new ProxyFactory((Listener) calls::incrementAndGet);
		factory.addAdvice((MethodInterceptor) (invocation) -> {
			// what the idempotent advice does while a group is prepared
			collected.add(((ProxyMethodInvocation) invocation).invocableClone());
			return null;
		});
		factory.addAdvice((MethodInterceptor) (invocation) -> {
			inner.incrementAndGet();
			return invocation.proceed();
		});
		((Listener) factory.getProxy()).onRecord();
		GroupMember member = new GroupMember(new ConsumerRecord<>("orders", 0, 7L, "k", "v"),
				new ClaimRequest("scope", "key", null), collected.get(0), new DeliveryOutputs(null, false, "listener", null));

		member.run();
		member.run();

		assertThat(calls).hasValue(2);
		assertThat(inner).hasValue(2);
	}

	interface Listener {

		void onRecord();

	}

}

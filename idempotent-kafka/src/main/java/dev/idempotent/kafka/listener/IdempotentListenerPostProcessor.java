package dev.idempotent.kafka.listener;

import java.util.function.Supplier;

import dev.idempotent.capture.ClaimOutputs;
import dev.idempotent.claim.LeasedClaimExecutor;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.method.ListenerMethods;
import dev.idempotent.kafka.reply.ListenerReplies;
import dev.idempotent.metrics.ClaimListener;
import dev.idempotent.retention.LateRecordGuard;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Proxies beans with {@link IdempotentListener} methods so that each such method runs under a claim.
 * <p>Ordering, deliberately: this post-processor runs before Spring Kafka's
 * {@code KafkaListenerAnnotationBeanPostProcessor} (which registers the bean instance it is given as the
 * listener, so it must be given the proxy), and its advice goes before any existing advisor on an already
 * proxied bean, so the claim's transaction is the outermost one and a {@code @Transactional} on the same
 * method joins it. Class-based proxies are used, so listener methods need not be declared on an interface.
 * <p>Each annotated method is resolved when its bean is created: a key expression that does not parse, or a
 * method that cannot be proxied, fails the startup naming the method.
 *
 * @since 0.1.0
 */
public final class IdempotentListenerPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

	private static final long serialVersionUID = 1L;

	/** Runs after the auto-proxy creators and before Spring Kafka's listener annotation processor. */
	public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private final transient Supplier<ListenerMethods> methods;

	/**
	 * Create the post-processor.
	 * @param methods supplies the resolver of annotated methods at the first listener bean
	 * @param executor supplies the executor at the first delivery (looked up lazily to keep start-up order free)
	 * @param leasedExecutor supplies the executor of LEASED claims at their first delivery
	 * @param claimListener supplies the claim listener at the first rejected key
	 */
	public IdempotentListenerPostProcessor(Supplier<ListenerMethods> methods, Supplier<TransactionalClaimExecutor> executor,
			Supplier<LeasedClaimExecutor> leasedExecutor, Supplier<ClaimListener> claimListener) {
		this(methods, executor, leasedExecutor, claimListener, () -> LateRecordGuard.NONE);
	}

	/**
	 * Create the post-processor with a check of records older than the retention period.
	 * @param methods supplies the resolver of annotated methods at the first listener bean
	 * @param executor supplies the executor at the first delivery (looked up lazily to keep start-up order free)
	 * @param leasedExecutor supplies the executor of LEASED claims at their first delivery
	 * @param claimListener supplies the claim listener at the first rejected key
	 * @param lateRecords supplies the guard of late records at the first delivery ({@link LateRecordGuard#NONE}
	 * without retention)
	 */
	public IdempotentListenerPostProcessor(Supplier<ListenerMethods> methods, Supplier<TransactionalClaimExecutor> executor,
			Supplier<LeasedClaimExecutor> leasedExecutor, Supplier<ClaimListener> claimListener,
			Supplier<LateRecordGuard> lateRecords) {
		this(methods, executor, leasedExecutor, claimListener, lateRecords, () -> null);
	}

	/**
	 * Create the post-processor with a check of late records and the capture of outputs.
	 * @param methods supplies the resolver of annotated methods at the first listener bean
	 * @param executor supplies the executor at the first delivery (looked up lazily to keep start-up order free)
	 * @param leasedExecutor supplies the executor of LEASED claims at their first delivery
	 * @param claimListener supplies the claim listener at the first rejected key
	 * @param lateRecords supplies the guard of late records at the first delivery
	 * @param outputs supplies the outputs of claims at the first delivery, {@code null} when outputs are not captured
	 * (no Kafka producer)
	 * @since 0.1.0
	 */
	public IdempotentListenerPostProcessor(Supplier<ListenerMethods> methods, Supplier<TransactionalClaimExecutor> executor,
			Supplier<LeasedClaimExecutor> leasedExecutor, Supplier<ClaimListener> claimListener,
			Supplier<LateRecordGuard> lateRecords, Supplier<@Nullable ClaimOutputs> outputs) {
		this(methods, executor, leasedExecutor, claimListener, lateRecords, outputs, () -> null);
	}

	/**
	 * Create the post-processor with a check of late records, the capture of outputs and replies stored with claims.
	 * @param methods supplies the resolver of annotated methods at the first listener bean
	 * @param executor supplies the executor at the first delivery (looked up lazily to keep start-up order free)
	 * @param leasedExecutor supplies the executor of LEASED claims at their first delivery
	 * @param claimListener supplies the claim listener at the first rejected key
	 * @param lateRecords supplies the guard of late records at the first delivery
	 * @param outputs supplies the outputs of claims at the first delivery, {@code null} when outputs are not captured
	 * (no Kafka producer)
	 * @param replies supplies, at the first delivery, how {@code @SendTo} listeners have their replies stored with
	 * their claims, {@code null} when none are
	 * @since 0.1.0
	 */
	public IdempotentListenerPostProcessor(Supplier<ListenerMethods> methods, Supplier<TransactionalClaimExecutor> executor,
			Supplier<LeasedClaimExecutor> leasedExecutor, Supplier<ClaimListener> claimListener,
			Supplier<LateRecordGuard> lateRecords, Supplier<@Nullable ClaimOutputs> outputs,
			Supplier<@Nullable ListenerReplies> replies) {
		this.methods = methods;
		this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, IdempotentListener.class, true),
				new IdempotentListenerInterceptor(methods, executor, leasedExecutor, claimListener,
						new LateRecordCheck(lateRecords), outputs, replies));
		setBeforeExistingAdvisors(true);
		setProxyTargetClass(true);
		setOrder(ORDER);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		ReflectionUtils.doWithMethods(targetClass, (method) -> {
			try {
				this.methods.get().get(method);
			}
			catch (IllegalArgumentException ex) {
				throw new BeanInitializationException("Invalid @IdempotentListener on bean '" + beanName + "': "
						+ ex.getMessage(), ex);
			}
		}, (method) -> AnnotatedElementUtils.hasAnnotation(method, IdempotentListener.class));
		return super.postProcessAfterInitialization(bean, beanName);
	}

}

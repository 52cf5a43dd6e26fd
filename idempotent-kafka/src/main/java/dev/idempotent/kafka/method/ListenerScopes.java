package dev.idempotent.kafka.method;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.idempotent.kafka.IdempotentListener;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The scope rule, checked at startup: a scope that an {@link IdempotentListener} method gets implicitly (its
 * consumer group id) belongs to that one method. Each method's scopes are resolved once every listener bean
 * exists: the declared {@code scope}, else the group id of each {@code @KafkaListener} that reaches it, resolved
 * as Spring Kafka resolves it ({@link ListenerGroupIds}). When two different methods resolve to one scope and at
 * least one of them takes it implicitly, the application stops, naming the methods, the scope and the fix; methods
 * that all declare one scope explicitly share it on purpose. A method with retry topics ({@code @RetryableTopic})
 * whose listener names its group must declare its scope: Spring Kafka runs it in a group per retry topic, which would
 * split its key space ({@link RetryTopics}). A group id that cannot be resolved here is checked at
 * the first delivery ({@link ScopeOwners}), where a conflict dead-letters the record instead of skipping it.
 * <p>Why: one {@code spring.kafka.consumer.group-id} for every listener of a service is common; listeners on two
 * topics keyed on the same business id would otherwise share one key space, and the second listener's record for
 * a key the first processed would be skipped as a hit (a silent loss). The default scope stays the group id, so
 * stored keys stay valid, and never derives from class or method names, which change in a refactoring.
 *
 * @since 0.1.0
 */
public final class ListenerScopes implements SmartInitializingSingleton {

	private final Supplier<ListenerMethods> methods;

	private final ListenerGroupIds groupIds;

	private final ConfigurableListableBeanFactory beanFactory;

	/**
	 * Create the check.
	 * @param methods the resolved listener methods
	 * @param beanFactory resolves placeholders and SpEL in {@code @KafkaListener} attributes and finds the container
	 * factories
	 */
	public ListenerScopes(Supplier<ListenerMethods> methods, ConfigurableListableBeanFactory beanFactory) {
		this.methods = methods;
		this.groupIds = new ListenerGroupIds(beanFactory);
		this.beanFactory = beanFactory;
	}

	/**
	 * Resolve every listener method's scopes, refuse shared implicit scopes, and register the owner of each scope
	 * for the check at delivery.
	 * @throws IllegalStateException naming the methods and the scope when two methods share a scope that at least
	 * one of them takes implicitly, or when a method with retry topics takes a group id its listener names
	 */
	@Override
	public void afterSingletonsInstantiated() {
		ListenerMethods listenerMethods = this.methods.get();
		Map<String, List<Use>> uses = uses(listenerMethods);
		List<String> conflicts = new ArrayList<>(splitByRetryTopics(listenerMethods));
		uses.forEach((scope, users) -> {
			if (users.stream().map(Use::method).distinct().count() > 1 && users.stream().anyMatch((u) -> !u.explicit())) {
				conflicts.add(conflict(scope, users));
			}
		});
		if (!conflicts.isEmpty()) {
			throw new IllegalStateException(String.join("\n", conflicts));
		}
		uses.forEach((scope, users) -> users.forEach((u) -> listenerMethods.owners().register(scope, u.method(), u.explicit())));
	}

	private Map<String, List<Use>> uses(ListenerMethods listenerMethods) {
		Map<String, List<Use>> uses = new LinkedHashMap<>();
		List<ListenerMethod> all = new ArrayList<>(listenerMethods.all());
		all.sort(Comparator.comparing(ListenerMethod::toString));
		for (ListenerMethod method : all) {
			String explicit = method.explicitScope();
			if (explicit != null) {
				add(uses, explicit, new Use(method, true));
				continue;
			}
			for (ListenerGroupIds.GroupId group : this.groupIds.of(method.method(), method.endpoint().containerFactory())) {
				if (group.value() != null) {
					add(uses, group.value(), new Use(method, false));
				}
			}
		}
		return uses;
	}

	/**
	 * A method with retry topics whose listener names its group runs in that group and in the group plus each retry
	 * and dead-letter suffix: an implicit scope would give one method a key space per topic of the chain, and a
	 * duplicate of a record processed on a retry topic would be processed again on the main topic.
	 */
	private List<String> splitByRetryTopics(ListenerMethods listenerMethods) {
		List<String> problems = new ArrayList<>();
		for (ListenerMethod method : listenerMethods.all()) {
			if (method.explicitScope() != null
					|| !RetryTopics.apply(method.method(), method.endpoint().topics(), this.beanFactory)) {
				continue;
			}
			this.groupIds.of(method.method(), method.endpoint().containerFactory())
				.stream()
				.filter(ListenerGroupIds.GroupId::namedByListener)
				.map(ListenerGroupIds.GroupId::value)
				.distinct()
				.forEach((group) -> problems.add("@IdempotentListener method " + method + " has retry topics"
						+ " (@RetryableTopic or a RetryTopicConfiguration bean) and takes its consumer group id '" + group
						+ "' as scope: Spring Kafka runs it on each retry and dead-letter topic in another group ('" + group
						+ "' plus a suffix), so its keys would be split by topic, and a duplicate of a record processed on"
						+ " a retry topic would be processed again. Declare the scope: @IdempotentListener(scope = \""
						+ group + "\") keeps the keys already stored."));
		}
		problems.sort(null);
		return problems;
	}

	private static void add(Map<String, List<Use>> uses, String scope, Use use) {
		List<Use> users = uses.computeIfAbsent(scope, (s) -> new ArrayList<>());
		if (!users.contains(use)) {
			users.add(use);
		}
	}

	private static String conflict(String scope, List<Use> users) {
		StringBuilder methods = new StringBuilder();
		for (Use use : users) {
			methods.append((methods.length() > 0) ? ", " : "")
				.append(use.method())
				.append(use.explicit() ? " (scope = \"" + scope + "\")" : " (its consumer group id)");
		}
		return "@IdempotentListener methods " + methods + " resolve to the same scope '" + scope + "' and at least"
				+ " one takes it implicitly from its consumer group id: their idempotency keys would merge, and a record"
				+ " of one whose key another processed before would be skipped as a hit (lost). Give each method its own"
				+ " explicit @IdempotentListener(scope = \"...\"); to keep the keys already stored, give the method that"
				+ " used them scope = \"" + scope + "\". Methods that all declare the same scope explicitly share its"
				+ " key space on purpose.";
	}

	private record Use(ListenerMethod method, boolean explicit) {
	}

}

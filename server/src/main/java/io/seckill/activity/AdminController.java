package io.seckill.activity;

import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Admin API (separate credential): create, warm, open, close, and the inventory view. */
@RestController
@RequestMapping("/api/v1/admin/activities")
class AdminController {

    private final ActivityService service;

    AdminController(ActivityService service) {
        this.service = service;
    }

    @PostMapping
    ResponseEntity<Map<String, Object>> create(@RequestBody(required = false) ActivityService.NewActivity body) {
        Activity a = service.create(body);
        return ResponseEntity.status(HttpStatus.CREATED)
                .body(Map.of("activity_id", a.activityId(), "status", a.status()));
    }

    @PostMapping("/{activityId}/warm")
    Map<String, Object> warm(@PathVariable long activityId) {
        service.warm(activityId);
        return Map.of("activity_id", activityId, "status", "WARMED");
    }

    @PostMapping("/{activityId}/open")
    Map<String, Object> open(@PathVariable long activityId) {
        service.open(activityId);
        return Map.of("activity_id", activityId, "status", "OPEN");
    }

    @PostMapping("/{activityId}/close")
    Map<String, Object> close(@PathVariable long activityId) {
        service.close(activityId);
        return Map.of("activity_id", activityId, "status", "CLOSED");
    }

    @GetMapping("/{activityId}/inventory")
    List<Map<String, Object>> inventory(@PathVariable long activityId) {
        return service.inventoryView(activityId).stream()
                .map(ActivityService::describe)
                .toList();
    }
}

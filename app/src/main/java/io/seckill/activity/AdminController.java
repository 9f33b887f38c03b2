package io.seckill.activity;

import java.util.List;
import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.seckill.api.TokenVerifier;

/** Admin API (separate credential): create, warm, open, close, and the inventory view. */
@RestController
@RequestMapping("/api/v1/admin/activities")
class AdminController {

    private final ActivityService service;
    private final TokenVerifier tokens;

    AdminController(ActivityService service, TokenVerifier tokens) {
        this.service = service;
        this.tokens = tokens;
    }

    @PostMapping
    ResponseEntity<Map<String, Object>> create(@RequestHeader(value = "Authorization", required = false) String auth,
            @RequestBody(required = false) ActivityService.NewActivity body) {
        tokens.admin(auth);
        Activity a = service.create(body);
        return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("activity_id", a.activityId(), "status", a.status()));
    }

    @PostMapping("/{activityId}/warm")
    Map<String, Object> warm(@RequestHeader(value = "Authorization", required = false) String auth, @PathVariable long activityId) {
        tokens.admin(auth);
        service.warm(activityId);
        return Map.of("activity_id", activityId, "status", "WARMED");
    }

    @PostMapping("/{activityId}/open")
    Map<String, Object> open(@RequestHeader(value = "Authorization", required = false) String auth, @PathVariable long activityId) {
        tokens.admin(auth);
        service.open(activityId);
        return Map.of("activity_id", activityId, "status", "OPEN");
    }

    @PostMapping("/{activityId}/close")
    Map<String, Object> close(@RequestHeader(value = "Authorization", required = false) String auth, @PathVariable long activityId) {
        tokens.admin(auth);
        service.close(activityId);
        return Map.of("activity_id", activityId, "status", "CLOSED");
    }

    @GetMapping("/{activityId}/inventory")
    List<Map<String, Object>> inventory(@RequestHeader(value = "Authorization", required = false) String auth,
            @PathVariable long activityId) {
        tokens.admin(auth);
        return service.inventoryView(activityId).stream().map(ActivityService::describe).toList();
    }
}
